package convert

import celast "cel.dev/cel-go/common/ast"

// MaxExpansion bounds the size of an expression with every reference to a
// cel.bind variable (or a comprehension's accumulator) replaced by the
// expression bound to it: cel-go's cost estimator walks the bound
// expression again at each reference, so 22 nested binds that each refer
// twice to the one before take it a second and 30 take it minutes, at
// build and in every consumer that loads the package. An expression a
// person writes expands to a few hundred nodes.
const MaxExpansion = 100_000

// expansion is the expanded size of e, counted up to past limit.
func expansion(e celast.Expr, vars map[string]int64, limit int64) int64 {
	n := int64(1)
	add := func(sub celast.Expr, vars map[string]int64) bool {
		n += expansion(sub, vars, limit-n)
		return n <= limit
	}
	switch e.Kind() {
	case celast.IdentKind:
		if w, ok := vars[e.AsIdent()]; ok {
			return w
		}
	case celast.SelectKind:
		add(e.AsSelect().Operand(), vars)
	case celast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() && !add(c.Target(), vars) {
			return n
		}
		for _, a := range c.Args() {
			if !add(a, vars) {
				return n
			}
		}
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			if !add(el, vars) {
				return n
			}
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			if !add(me.Key(), vars) || !add(me.Value(), vars) {
				return n
			}
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			if !add(f.AsStructField().Value(), vars) {
				return n
			}
		}
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		inner := make(map[string]int64, len(vars)+1)
		for k, v := range vars {
			inner[k] = v
		}
		before := n
		if !add(c.AccuInit(), vars) {
			return n
		}
		inner[c.AccuVar()] = n - before
		delete(inner, c.IterVar())
		delete(inner, c.IterVar2())
		if !add(c.IterRange(), vars) || !add(c.LoopCondition(), inner) || !add(c.LoopStep(), inner) {
			return n
		}
		add(c.Result(), inner)
	}
	return n
}
