package convert

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
)

// CostLimit is the cost limit of one evaluation, and of the static estimate
// of an expression, in cel-go's cost units: the limit the Kubernetes API
// server puts on the estimated cost of one CRD validation expression.
const CostLimit = 10_000_000

// MaxConversionCost is the cost budget of converting one object: the CEL
// evaluations of every rule of every step together, in cel-go's cost units.
// Each evaluation is bounded by CostLimit, so without it a package could
// make a consumer run as many evaluations of CostLimit as its addon.yaml
// holds rules; like the Kubernetes API server's budget for validating one
// object, it is the limit of one expression.
const MaxConversionCost = CostLimit

// MaxSizeEstimate is the number of elements (bytes for strings) the static
// cost estimate assumes for every list, map and string reachable from spec.
const MaxSizeEstimate = 1024

// newEnv builds the CEL environment of conversion expressions: the one
// variable spec, the standard library and extension libraries at fixed
// versions. None of them reads a clock, the network or a file.
func newEnv() (*cel.Env, error) {
	return cel.NewEnv(append([]cel.EnvOption{
		cel.Variable("spec", cel.DynType),
		cel.OptionalTypes(cel.OptionalTypesVersion(1)),
		ext.Strings(ext.StringsVersion(3)),
		ext.Lists(ext.ListsVersion(3)),
		ext.Sets(),
		ext.Math(ext.MathVersion(1)),
		ext.Bindings(ext.BindingsVersion(1)),
		ext.TwoVarComprehensions(ext.TwoVarComprehensionsVersion(0)),
		cel.CrossTypeNumericComparisons(true),
		// Pinned, so that a cel-go upgrade cannot change which packages
		// the builder accepts.
		cel.CostModelVersion(1),
	}, boundedStrings()...)...)
}

// expr is one compiled expression.
type expr struct {
	src  string
	prog cel.Program
	// estimate is the worst-case cost with MaxSizeEstimate-sized inputs.
	estimate uint64
}

// compile parses and checks src, wanting a bool when wantBool, and
// estimates its cost.
func compile(env *cel.Env, src string, wantBool bool) (*expr, error) {
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		return nil, fmt.Errorf("%w: CEL expression %q does not compile: %v", ErrConvert, src, iss.Err())
	}
	if wantBool && ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
		return nil, fmt.Errorf("%w: CEL expression %q is of type %s, want bool", ErrConvert, src, ast.OutputType())
	}
	if n := expansion(ast.NativeRep().Expr(), nil, MaxExpansion); n > MaxExpansion {
		return nil, fmt.Errorf("%w: CEL expression %q expands to more than %d nodes, each reference to a cel.bind variable counted as the expression bound to it", ErrConvert, src, MaxExpansion)
	}
	est, err := env.EstimateCost(ast, sizeEstimator{})
	if err != nil {
		return nil, fmt.Errorf("%w: CEL expression %q: estimating its cost: %v", ErrConvert, src, err)
	}
	prog, err := env.Program(ast, cel.CostLimit(CostLimit), cel.EvalOptions(cel.OptTrackCost))
	if err != nil {
		return nil, fmt.Errorf("%w: CEL expression %q: %v", ErrConvert, src, err)
	}
	return &expr{src: src, prog: prog, estimate: est.Max}, nil
}

// compileBounded compiles src and refuses it when its estimated worst-case
// cost exceeds CostLimit. field names it in errors.
func compileBounded(env *cel.Env, src string, wantBool bool, field string) (*expr, error) {
	e, err := compile(env, src, wantBool)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	if e.estimate > CostLimit {
		return nil, fmt.Errorf("%s: %w: CEL expression %q may cost up to %d, more than the limit of %d (every list, map and string of spec taken to hold %d elements)",
			field, ErrConvert, src, e.estimate, CostLimit, MaxSizeEstimate)
	}
	return e, nil
}

// sizeEstimator bounds every size the checker cannot know.
type sizeEstimator struct{}

func (sizeEstimator) EstimateSize(cost.AstNode) *cost.SizeEstimate {
	return &cost.SizeEstimate{Min: 0, Max: MaxSizeEstimate}
}

func (sizeEstimator) EstimateCallCost(string, string, *cost.AstNode, []cost.AstNode) *cost.CallEstimate {
	return nil
}

// eval evaluates e with spec bound to the JSON value s, adding its cost to
// *spent, the cost of the conversion so far, and failing once that exceeds
// MaxConversionCost.
func (e *expr) eval(s any, spent *uint64) (ref.Val, error) {
	in, err := toCEL(s)
	if err != nil {
		return nil, err
	}
	out, det, err := e.prog.Eval(map[string]any{"spec": in})
	if err != nil {
		return nil, fmt.Errorf("CEL expression %q: %w", e.src, err)
	}
	if c := det.ActualCost(); c != nil {
		*spent += *c
	}
	if *spent > MaxConversionCost {
		return nil, fmt.Errorf("CEL expression %q: the expressions of the conversion cost %d together, more than the limit of %d", e.src, *spent, MaxConversionCost)
	}
	return out, nil
}

// toCEL turns JSON values (json.Number for numbers) into the native values
// cel-go adapts: int64 for integers that fit, float64 otherwise.
func toCEL(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			c, err := toCEL(e)
			if err != nil {
				return nil, err
			}
			m[k] = c
		}
		return m, nil
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			c, err := toCEL(e)
			if err != nil {
				return nil, err
			}
			l[i] = c
		}
		return l, nil
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %v", v, err)
		}
		return f, nil
	case nil, bool, string:
		return v, nil
	case int64, float64:
		return v, nil
	case int:
		return int64(v), nil
	default:
		return nil, fmt.Errorf("%T is not a JSON value", v)
	}
}

// fromCEL turns a CEL result into JSON values (json.Number for numbers, in
// the canonical form of pkg/schema), refusing what JSON cannot hold.
func fromCEL(v ref.Val) (any, error) {
	switch v := v.(type) {
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(v), nil
	case types.Int:
		return json.Number(strconv.FormatInt(int64(v), 10)), nil
	case types.Uint:
		return json.Number(strconv.FormatUint(uint64(v), 10)), nil
	case types.Double:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("result %v is not a JSON number", f)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return json.Number(strconv.FormatInt(int64(f), 10)), nil
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case types.String:
		return string(v), nil
	}
	if l, ok := v.(traits.Lister); ok && v.Type().TypeName() == types.ListType.TypeName() {
		n, _ := l.Size().(types.Int)
		out := make([]any, 0, int(n))
		for i := types.Int(0); i < n; i++ {
			e, err := fromCEL(l.Get(i))
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	if m, ok := v.(traits.Mapper); ok && v.Type().TypeName() == types.MapType.TypeName() {
		out := map[string]any{}
		for it := m.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("result is a map with a %s key, not a JSON object", k.Type().TypeName())
			}
			e, err := fromCEL(m.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	return nil, fmt.Errorf("result is %s, not a JSON value", v.Type().TypeName())
}
