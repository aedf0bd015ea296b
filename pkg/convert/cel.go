package convert

import (
	"errors"
	"fmt"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
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
func newEnv() (*cel.Env, error) { return newEnvFor("spec") }

// newEnvFor is newEnv with the given variables, each of any JSON value, in
// place of spec (a policy's attestation rules: condition.go).
func newEnvFor(vars ...string) (*cel.Env, error) {
	opts := make([]cel.EnvOption, 0, len(vars))
	for _, v := range vars {
		opts = append(opts, cel.Variable(v, cel.DynType))
	}
	return cel.NewEnv(append(append(opts,
		cel.OptionalTypes(cel.OptionalTypesVersion(1)),
		ext.Strings(ext.StringsVersion(3)),
		// lists.range allocates its list before its size is checked (evalsize.go).
		ext.Lists(ext.ListsVersion(3), ext.ListsMaxRangeSize(MaxValueNodes)),
		ext.Sets(),
		ext.Math(ext.MathVersion(1)),
		ext.Bindings(ext.BindingsVersion(1)),
		ext.TwoVarComprehensions(ext.TwoVarComprehensionsVersion(0)),
		cel.CrossTypeNumericComparisons(true),
		// Pinned, so that a cel-go upgrade cannot change which packages
		// the builder accepts.
		cel.CostModelVersion(1),
	), boundedStrings()...)...)
}

// expr is one compiled expression.
type expr struct {
	src  string
	ast  *cel.Ast
	prog cel.Program
	// estimate is the worst-case cost with MaxSizeEstimate-sized inputs.
	estimate uint64
}

// compile parses and checks src, wanting a bool when wantBool, and
// estimates its cost with MaxSizeEstimate-sized inputs.
func compile(env *cel.Env, src string, wantBool bool) (*expr, error) {
	return compileSized(env, src, wantBool, MaxSizeEstimate)
}

// compileSized is compile with every list, map and string taken to hold
// size elements in the estimate.
func compileSized(env *cel.Env, src string, wantBool bool, size uint64) (*expr, error) {
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
	est, err := env.EstimateCost(ast, sizeEstimator{size})
	if err != nil {
		return nil, fmt.Errorf("%w: CEL expression %q: estimating its cost: %v", ErrConvert, src, err)
	}
	prog, err := env.Program(ast, cel.CostLimit(CostLimit), cel.EvalOptions(cel.OptTrackCost), boundEvalSizes())
	if err != nil {
		return nil, fmt.Errorf("%w: CEL expression %q: %v", ErrConvert, src, err)
	}
	return &expr{src: src, ast: ast, prog: prog, estimate: est.Max}, nil
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
type sizeEstimator struct{ max uint64 }

func (s sizeEstimator) EstimateSize(cost.AstNode) *cost.SizeEstimate {
	return &cost.SizeEstimate{Min: 0, Max: s.max}
}

func (sizeEstimator) EstimateCallCost(string, string, *cost.AstNode, []cost.AstNode) *cost.CallEstimate {
	return nil
}

// eval evaluates e with spec bound to the JSON value s, adding its cost and
// the sizes of s to b, the conversion's budget, and failing once the cost
// exceeds MaxConversionCost, s a value-size bound, or a value built during
// the evaluation MaxEvalSize.
func (e *expr) eval(s any, b *budget) (ref.Val, error) {
	in, err := toCEL(s, newMeter("the spec", b), 0)
	if err != nil {
		return nil, fmt.Errorf("CEL expression %q: %w", e.src, err)
	}
	out, det, err := e.prog.Eval(map[string]any{"spec": in})
	if c := det.ActualCost(); c != nil {
		b.cost += *c
	}
	if ce := (interpreter.EvalCancelledError{}); errors.As(err, &ce) && ce.Cause == interpreter.MemoryLimitExceeded {
		return nil, fmt.Errorf("CEL expression %q: a value it builds is larger than %d (bytes of strings and other nodes), the limit of one value", e.src, MaxEvalSize)
	}
	if err != nil {
		return nil, fmt.Errorf("CEL expression %q: %w", e.src, err)
	}
	if b.cost > MaxConversionCost {
		return nil, fmt.Errorf("CEL expression %q: the expressions of the conversion cost %d together, more than the limit of %d", e.src, b.cost, MaxConversionCost)
	}
	return out, nil
}
