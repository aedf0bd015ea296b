package convert

import (
	"fmt"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
)

// MaxStringSize bounds, in bytes, the string one call of replace or join
// may build. At the strings library version newEnv pins, cel-go charges
// these calls a constant cost whatever they allocate, and a rule's result
// is the next rule's input, so without it a chain of
// `set: {path: s, expression: "spec.s.replace('a', spec.s)"}` squares the
// size of spec.s at every rule and exhausts the memory of whoever converts.
// cel-go's memory tracker sees a string only once it is built: one
// `'a'.replace('a', s)` of a string within bounds may ask for gigabytes.
// A string larger than one value may be is refused anyway.
const MaxStringSize = MaxValueBytes

// boundedStrings redefines the implementations of the strings library's
// replace and join (same overloads and signatures, same results) to refuse
// a result over MaxStringSize before building it.
func boundedStrings() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("replace",
			cel.MemberOverload("string_replace_string_string", []*cel.Type{cel.StringType, cel.StringType, cel.StringType}, cel.StringType,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					return replace(args[0].(types.String), args[1].(types.String), args[2].(types.String), -1)
				})),
			cel.MemberOverload("string_replace_string_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.StringType, cel.IntType}, cel.StringType,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					return replace(args[0].(types.String), args[1].(types.String), args[2].(types.String), int64(args[3].(types.Int)))
				}))),
		cel.Function("join",
			cel.MemberOverload("list_join", []*cel.Type{cel.ListType(cel.StringType)}, cel.StringType,
				cel.UnaryBinding(func(list ref.Val) ref.Val {
					return join(list.(traits.Lister), "")
				})),
			cel.MemberOverload("list_join_string", []*cel.Type{cel.ListType(cel.StringType), cel.StringType}, cel.StringType,
				cel.BinaryBinding(func(list, sep ref.Val) ref.Val {
					return join(list.(traits.Lister), string(sep.(types.String)))
				}))),
	}
}

// replace is strings.Replace (n < 0: every match), refused when the result
// would be larger than MaxStringSize.
func replace(s, old, repl types.String, n int64) ref.Val {
	count := int64(strings.Count(string(s), string(old)))
	if n >= 0 && n < count {
		count = n
	}
	if grow := int64(len(repl)) - int64(len(old)); grow > 0 && count > 0 {
		if grow > MaxStringSize/count || int64(len(s))+count*grow > MaxStringSize {
			return tooLarge("replace")
		}
	}
	if n < 0 {
		return types.String(strings.ReplaceAll(string(s), string(old), string(repl)))
	}
	return types.String(strings.Replace(string(s), string(old), string(repl), int(n)))
}

// join joins the strings of l with sep, refused when the result would be
// larger than MaxStringSize.
func join(l traits.Lister, sep string) ref.Val {
	n := int64(l.Size().(types.Int))
	size := int64(0)
	if n > 0 {
		size = (n - 1) * int64(len(sep))
	}
	for i := int64(0); i < n; i++ {
		e := l.Get(types.Int(i))
		str, ok := e.(types.String)
		if !ok {
			return types.NewErr("join: invalid input: %v", e)
		}
		size += int64(len(str))
		if size > MaxStringSize || size < 0 {
			return tooLarge("join")
		}
	}
	var b strings.Builder
	b.Grow(int(size))
	for i := int64(0); i < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(l.Get(types.Int(i)).(types.String)))
	}
	return types.String(b.String())
}

func tooLarge(fn string) ref.Val {
	return types.NewErr("%s: the result would be more than %s bytes, the limit of one string a conversion builds", fn, fmt.Sprint(MaxStringSize))
}
