package convert

import (
	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/interpreter"
)

// boundEvalSizes is the program option that stops an evaluation as soon
// as a value it builds — the result of an operator, a function or a
// comprehension, a list or map literal — is larger than MaxEvalSize in
// cel-go's aggregate units (a unit per byte of a string, one per other
// node), with the error cel-go's own memory limit gives.
//
// Charging `+` by the size of its result (cel.CostTracking with an
// ActualCostEstimator) makes the cost limit stop list concatenation, but not
// list and map literals, which are not function calls: five nested
// {'x': a, 'y': a} grew a 100,000-element list 32 times for a cost of 202.
//
// cel-go's MemoryLimit does this too, but sizes a comprehension's
// accumulator at every step (or every Nth, letting the steps between build
// what they like): a list of n elements is then sized n times, and mapping
// a list of 150,000 items took seconds. Here the accumulator, a mutable
// list or map cel-go hands only to the comprehension's own step, is not
// sized; each element added to it is, when built, and the comprehension's
// result is, once, before anything else reads it. cel-go keeps the size of
// each list and map it has sized (a concatenation adds the sizes of its
// parts), so sizing a value built of values already sized costs its own
// entries, not theirs.
func boundEvalSizes() cel.ProgramOption {
	calc := types.NewSizeCalculator(
		types.SizeCalculatorStringUnitLength(1),
		// cel-go counts the scalars inside the deepest containers as a level.
		types.SizeCalculatorMaxDepth(MaxValueDepth+1),
		types.SizeCalculatorMaxTraversal(MaxEvalSize))
	return cel.CustomDecoratorV2(func(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
		switch i := i.(type) {
		case interpreter.InterpretableAttribute, interpreter.InterpretableConst, *sized, *sizedConstructor:
			return i, nil
		case interpreter.InterpretableConstructor:
			return &sizedConstructor{InterpretableConstructor: i, calc: calc}, nil
		default:
			return &sized{InterpretableV2: i, calc: calc}, nil
		}
	})
}

type sized struct {
	interpreter.InterpretableV2
	calc *types.SizeCalculator
}

func (s *sized) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	return check(s.calc, s.InterpretableV2.Exec(frame))
}

func (s *sized) Eval(vars interpreter.Activation) ref.Val {
	return interpreter.EvalActivation(vars, s.Exec)
}

// sizedConstructor keeps the constructor's interface, which the planner
// reads.
type sizedConstructor struct {
	interpreter.InterpretableConstructor
	calc *types.SizeCalculator
}

func (s *sizedConstructor) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	return check(s.calc, s.InterpretableConstructor.Exec(frame))
}

func (s *sizedConstructor) Eval(vars interpreter.Activation) ref.Val {
	return interpreter.EvalActivation(vars, s.Exec)
}

// check cancels the evaluation when v is larger than MaxEvalSize.
func check(calc *types.SizeCalculator, v ref.Val) ref.Val {
	switch v.(type) {
	case types.Bool, types.Int, types.Uint, types.Double, types.Null, *types.Err, traits.MutableLister, traits.MutableMapper:
		return v
	case types.String:
		if len(v.(types.String)) <= MaxEvalSize {
			return v
		}
	default:
		if est := calc.ApproximateAggregateSize(v); !est.LimitExceeded && est.Size <= MaxEvalSize {
			return v
		}
	}
	panic(interpreter.EvalCancelledError{Cause: interpreter.MemoryLimitExceeded, Message: "operation cancelled: memory limit exceeded"})
}
