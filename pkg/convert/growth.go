package convert

import (
	"fmt"
	"strings"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"

	"github.com/addonpack/addonpack/pkg/spec"
)

// MaxGrowth bounds the static growth estimate (specs/config.md section
// 9.6.1): how many times as large as the object converted the spec may
// become, rule after rule. Real config objects are at most tens of KiB, and
// 64 of them are still within MaxValueBytes; a rule that doubles a value is
// refused after six doublings, at build, instead of at the consumer's
// conversion.
const MaxGrowth = 64

// growth follows the chain's rules and estimates, for every path a rule
// has set, which parts of the object converted its value may hold, and how
// many times each (its weight): a reference to spec, or to a part of it,
// holds that part once, or what the rules before set there; a literal
// holds none; a list or map literal, a call, a concatenation the sum of its
// arguments; a scalar result none. A comprehension holds its range, its
// initial value and its step, each once: growth that depends on the
// input's shape (a list the user wrote, mapped over) is left to the bounds
// checked while converting. The spec's size is at most the object's times
// the largest number of times one part of it is held (overlap): parts at
// unrelated paths do not add up.
type growth struct {
	set map[string]weight // what the paths rules have set hold
}

// weight counts, by the path of each part of the object converted, how
// many times a value may hold it ("" is the whole object).
type weight map[string]float64

func (w weight) add(o weight) weight {
	if len(o) == 0 {
		return w
	}
	if w == nil {
		w = weight{}
	}
	for p, n := range o {
		w[p] += n
	}
	return w
}

// overlap is how many times as large as the object the value may be: the
// largest number of times one part is held, its own path and every path
// around it counted.
func (w weight) overlap() float64 {
	most := 0.0
	for p := range w {
		n := w[""]
		for i := 0; i <= len(p); i++ {
			if (i == len(p) || p[i] == '.') && p != "" {
				n += w[p[:i]]
			}
		}
		most = max(most, n)
	}
	return most
}

func newGrowth() *growth { return &growth{set: map[string]weight{}} }

// of is what the value at path ("" is the whole spec) may hold: what was
// set at the path or around it (when nothing was, the object's own part
// there), and everything set below it.
func (g *growth) of(path string) weight {
	var w weight
	deepest := -1
	for p, pw := range g.set {
		if within(path, p) && len(p) > deepest {
			w, deepest = pw, len(p)
		}
	}
	w = weight{}.add(w)
	if deepest < 0 {
		w[path]++
	}
	for p, pw := range g.set {
		if p != path && within(p, path) {
			w.add(pw)
		}
	}
	return w
}

// within reports whether path is p or below it.
func within(path, p string) bool {
	return path == p || p == "" || strings.HasPrefix(path, p+".")
}

// assign records that path now holds w, replacing what was set below it.
func (g *growth) assign(path string, w weight) {
	g.remove(path)
	g.set[path] = w
}

func (g *growth) remove(path string) {
	for p := range g.set {
		if within(p, path) {
			delete(g.set, p)
		}
	}
}

func (g *growth) move(from, to string) {
	w := g.of(from)
	g.remove(from)
	g.assign(to, w)
}

// rule applies r (a, its compiled expression, nil for a rule without one)
// and returns how many times as large as the object the spec may be after
// it. Defaults add constants.
func (g *growth) rule(r spec.Rule, a *celast.AST) float64 {
	switch {
	case r.Move != nil:
		g.move(r.Move.From, r.Move.To)
	case r.Rename != nil:
		g.move(r.Rename.Path, sibling(r.Rename.Path, r.Rename.To))
	case r.Delete != nil:
		g.remove(r.Delete.Path)
	case r.Set != nil:
		g.assign(r.Set.Path, g.expr(a, a.Expr(), map[string]weight{}))
	}
	return g.of("").overlap()
}

// expr is what e may hold, with what the local variables in scope hold.
func (g *growth) expr(a *celast.AST, e celast.Expr, vars map[string]weight) weight {
	if scalar(a.GetType(e.ID())) {
		return nil
	}
	var w weight
	switch e.Kind() {
	case celast.IdentKind:
		if v, ok := vars[e.AsIdent()]; ok {
			return v
		}
		if e.AsIdent() == "spec" {
			return g.of("")
		}
	case celast.SelectKind:
		if path, ok := specPath(e); ok {
			return g.of(path)
		}
		return g.expr(a, e.AsSelect().Operand(), vars)
	case celast.CallKind:
		if path, ok := specPath(e); ok {
			return g.of(path)
		}
		c := e.AsCall()
		switch c.FunctionName() {
		case operators.Index, operators.OptIndex, operators.OptSelect:
			return g.expr(a, c.Args()[0], vars)
		}
		if c.IsMemberFunction() {
			w = w.add(g.expr(a, c.Target(), vars))
		}
		for _, arg := range c.Args() {
			w = w.add(g.expr(a, arg, vars))
		}
	case celast.ListKind:
		for _, el := range e.AsList().Elements() {
			w = w.add(g.expr(a, el, vars))
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			w = w.add(g.expr(a, me.Key(), vars)).add(g.expr(a, me.Value(), vars))
		}
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		inner := make(map[string]weight, len(vars)+3)
		for k, v := range vars {
			inner[k] = v
		}
		rng := g.expr(a, c.IterRange(), vars)
		inner[c.IterVar()] = rng
		if c.HasIterVar2() {
			inner[c.IterVar2()] = rng
		}
		inner[c.AccuVar()] = nil
		accu := weight{}.add(g.expr(a, c.AccuInit(), vars)).add(g.expr(a, c.LoopStep(), inner))
		inner[c.AccuVar()] = accu
		return g.expr(a, c.Result(), inner)
	}
	return w
}

// scalar reports whether values of type t have a fixed size.
func scalar(t *types.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind() {
	case types.BoolKind, types.IntKind, types.UintKind, types.DoubleKind, types.NullTypeKind,
		types.DurationKind, types.TimestampKind, types.TypeKind:
		return true
	}
	return false
}

// specPath is the dotted path of spec.a.b, when e is one; spec.?a and
// spec['a'] (an optional value or a lookup of a constant key) name the same
// path.
func specPath(e celast.Expr) (string, bool) {
	var names []string
	for {
		switch e.Kind() {
		case celast.SelectKind:
			s := e.AsSelect()
			if s.IsTestOnly() {
				return "", false
			}
			names = append([]string{s.FieldName()}, names...)
			e = s.Operand()
			continue
		case celast.CallKind:
			c := e.AsCall()
			switch c.FunctionName() {
			case operators.OptSelect, operators.Index, operators.OptIndex:
			default:
				return "", false
			}
			key, ok := constantString(c.Args()[1])
			if !ok || strings.Contains(key, ".") {
				return "", false
			}
			names = append([]string{key}, names...)
			e = c.Args()[0]
			continue
		case celast.IdentKind:
			if e.AsIdent() == "spec" {
				return strings.Join(names, "."), true
			}
		}
		return "", false
	}
}

func constantString(e celast.Expr) (string, bool) {
	if e.Kind() != celast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}

// checkGrowth refuses a rule after which the spec's weight exceeds
// MaxGrowth.
func checkGrowth(g *growth, r spec.Rule, a *cel.Ast, field string) error {
	var native *celast.AST
	if a != nil {
		native = a.NativeRep()
	}
	if w := g.rule(r, native); w > MaxGrowth {
		return fmt.Errorf("%s: %w: after this rule the spec may be %.0f times as large as the object converted, more than %d (each rule's result is the next rule's input; specs/config.md section 9.6.1)",
			field, ErrConvert, w, MaxGrowth)
	}
	return nil
}
