package convert

import (
	"errors"
	"fmt"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"
)

// Condition is a boolean CEL expression over named JSON values, held to the
// discipline of conversion rules: the same environment (the standard library
// and extension libraries at pinned versions; no clock, network or file),
// its worst-case cost estimated and refused above CostLimit when it is
// compiled, and each evaluation bounded by CostLimit, the value-size bounds
// of specs/config.md section 9.4.1 and MaxEvalSize. A policy's attestation
// rules are Conditions over a verified in-toto statement (specs/policy.md):
// a policy is as untrusted an input to a consumer's machine as a package.
// A Condition is safe for concurrent use.
type Condition struct {
	e    *expr
	vars []string
}

// ConditionSizeEstimate is the number of elements (bytes for strings) the
// static cost estimate of a Condition assumes for every list, map and
// string. It is smaller than MaxSizeEstimate because a condition's inputs
// (an SBOM's components, each with its properties) nest where a config's
// rarely do: with 1,024 a plain "every image is among the components"
// estimates at 10^11. The estimate refuses conditions whose cost grows as a
// high power of their inputs (four nested loops pass CostLimit at 64); what
// a larger input costs at run time stays bounded by CostLimit.
const ConditionSizeEstimate = 64

// CompileCondition compiles src over the variables vars. It fails when src
// does not compile, is not of type bool, expands past MaxExpansion nodes or
// may cost more than CostLimit with every list, map and string taken to
// hold ConditionSizeEstimate elements.
func CompileCondition(src string, vars ...string) (*Condition, error) {
	env, err := newEnvFor(vars...)
	if err != nil {
		return nil, fmt.Errorf("%w: CEL environment: %v", ErrConvert, err)
	}
	e, err := compileSized(env, src, true, ConditionSizeEstimate)
	if err != nil {
		return nil, err
	}
	if e.estimate > CostLimit {
		return nil, fmt.Errorf("%w: CEL expression %q may cost up to %d, more than the limit of %d (every list, map and string taken to hold %d elements)",
			ErrConvert, src, e.estimate, CostLimit, ConditionSizeEstimate)
	}
	return &Condition{e: e, vars: append([]string(nil), vars...)}, nil
}

// References reports whether the expression names the variable name (so a
// caller can leave out a value that costs something to get).
func (c *Condition) References(name string) bool {
	for _, r := range c.e.ast.NativeRep().ReferenceMap() {
		if r.Name == name {
			return true
		}
	}
	return false
}

// String returns the expression's source.
func (c *Condition) String() string { return c.e.src }

// Eval evaluates the condition with each variable bound to its value in
// values (JSON values as encoding/json decodes them, numbers as json.Number
// or float64; a variable missing from values is null). Every value counts
// towards one budget of MaxConversionBytes and MaxConversionNodes; a value
// over a bound, an evaluation over CostLimit, an error or a result that is
// not a bool fails.
func (c *Condition) Eval(values map[string]any) (bool, error) {
	b := &budget{}
	act := make(map[string]any, len(c.vars))
	for _, name := range c.vars {
		v, err := toCEL(values[name], newMeter(name, b), 0)
		if err != nil {
			return false, fmt.Errorf("CEL expression %q: %w", c.e.src, err)
		}
		act[name] = v
	}
	out, det, err := c.e.prog.Eval(act)
	if ce := (interpreter.EvalCancelledError{}); errors.As(err, &ce) && ce.Cause == interpreter.MemoryLimitExceeded {
		return false, fmt.Errorf("CEL expression %q: a value it builds is larger than %d (bytes of strings and other nodes), the limit of one value", c.e.src, MaxEvalSize)
	}
	if err != nil {
		return false, fmt.Errorf("CEL expression %q: %w", c.e.src, err)
	}
	if cost := det.ActualCost(); cost != nil && *cost > CostLimit {
		return false, fmt.Errorf("CEL expression %q cost %d, more than the limit of %d", c.e.src, *cost, CostLimit)
	}
	r, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("CEL expression %q evaluated to %s, not a bool", c.e.src, out.Type().TypeName())
	}
	return bool(r), nil
}
