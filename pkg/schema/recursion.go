package schema

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// MaxApplications bounds how many schemas may apply at one place of a
// value, at any depth: the validator evaluates each of them there. A
// recursive schema whose recursion applies twice at the same place
// ({properties: {c: {allOf: [{$ref: "#"}, {$ref: "#"}]}}}) doubles them at
// every level of the value; one that recurses into different places (a
// tree's left and right) does not. checkCost bounds a schema's cost once;
// this bounds it per place, through recursion.
const MaxApplications = 10_000

// maxRecursionWork bounds the schemas the whole check visits.
const maxRecursionWork = 5_000_000

// step is one child edge: the schema applies to a member named label
// (byName), to members whose names match re (a patternProperties entry; nil
// re: any name), to members its own properties do not list
// (additionalProperties), to any member (unevaluatedProperties), to
// elements, or to member names (propertyNames).
type step struct {
	kind   stepKind
	label  string
	re     *regexp.Regexp
	target uintptr
}

type stepKind int

const (
	byName stepKind = iota
	byPattern
	additional
	anyMember
	element
	memberName
)

// placeGraph is the document's schemas as in-place edges (applying at the
// same place) and child edges (applying one level down).
type placeGraph struct {
	inPlace  map[uintptr][]uintptr
	children map[uintptr][]step
	props    map[uintptr]map[string]bool // the names each schema's properties list
	work     int                         // schemas visited by closures so far
}

// checkRecursion refuses doc when the schemas applying at one place of some
// value can pass MaxApplications. It explores the places of a value as the
// schema sees them (the root; each property name, any other name, any
// element; then their children), each described by how many times each
// schema applies there, and stops at a description it has seen before: a
// recursion that applies once per place repeats, one that applies several
// times grows until it passes the bound.
func (c *schemaCost) checkRecursion(doc map[string]any) error {
	g := placeGraph{inPlace: map[uintptr][]uintptr{}, children: map[uintptr][]step{}, props: map[uintptr]map[string]bool{}}
	known := map[uintptr]bool{}
	var add func(obj map[string]any)
	add = func(obj map[string]any) {
		if known[id(obj)] {
			return
		}
		known[id(obj)] = true
		g.edges(c, obj, add)
	}
	add(doc)
	start, n := g.closure(map[uintptr]int{id(doc): 1})
	seen := map[string]bool{levelKey(start): true}
	queue := []map[uintptr]int{start}
	for len(queue) > 0 {
		if n > MaxApplications {
			return fmt.Errorf("more than %d schemas apply at one place of a value (does a recursive $ref apply several times at the same place?): %w",
				MaxApplications, ErrLimit)
		}
		if g.work > maxRecursionWork {
			return fmt.Errorf("checking how the schema recurses takes more than %d steps: %w", maxRecursionWork, ErrLimit)
		}
		here := queue[0]
		queue = queue[1:]
		for _, child := range g.descend(here) {
			if k := levelKey(child); !seen[k] {
				seen[k] = true
				queue = append(queue, child)
				n = max(n, total(child))
			}
		}
	}
	return nil
}

// edges records obj's in-place and child edges and calls add on every
// schema they lead to.
func (g *placeGraph) edges(c *schemaCost, obj map[string]any, add func(map[string]any)) {
	from := id(obj)
	inPlace := func(v any) {
		if sub, ok := v.(map[string]any); ok {
			g.inPlace[from] = append(g.inPlace[from], id(sub))
			add(sub)
		}
	}
	child := func(st step, v any) {
		if sub, ok := v.(map[string]any); ok {
			st.target = id(sub)
			g.children[from] = append(g.children[from], st)
			add(sub)
		}
	}
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if ref, ok := obj[kw].(string); ok {
			if t := c.target(obj, ref); t != nil {
				inPlace(t)
			}
		}
	}
	for _, kw := range []string{"not", "if", "then", "else"} {
		inPlace(obj[kw])
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := obj[kw].([]any)
		for _, v := range list {
			inPlace(v)
		}
	}
	for _, kw := range []string{"dependentSchemas", "dependencies"} {
		m, _ := obj[kw].(map[string]any)
		for _, v := range m {
			inPlace(v)
		}
	}
	props, _ := obj["properties"].(map[string]any)
	g.props[from] = map[string]bool{}
	for name, v := range props {
		g.props[from][name] = true
		child(step{kind: byName, label: name}, v)
	}
	pattern, _ := obj["patternProperties"].(map[string]any)
	for expr, v := range pattern {
		re, err := regexp.Compile(expr) // ECMA-262 and RE2 mostly agree; nil: any name
		if err != nil {
			re = nil
		}
		child(step{kind: byPattern, re: re}, v)
	}
	child(step{kind: additional}, obj["additionalProperties"])
	child(step{kind: anyMember}, obj["unevaluatedProperties"])
	child(step{kind: memberName}, obj["propertyNames"])
	for _, kw := range []string{"additionalItems", "unevaluatedItems", "contains"} {
		child(step{kind: element}, obj[kw])
	}
	switch items := obj["items"].(type) {
	case map[string]any:
		child(step{kind: element}, items)
	case []any:
		for _, v := range items {
			child(step{kind: element}, v)
		}
	}
	prefix, _ := obj["prefixItems"].([]any)
	for _, v := range prefix {
		child(step{kind: element}, v)
	}
}

// closure adds to level the schemas its schemas apply in place, counted
// with multiplicity (a reference back into a schema being expanded, which
// the validator reports as a loop, counts once), and returns them with
// their total. Every schema visited adds at least one, so one closure
// visits at most MaxApplications+1 schemas; all closures of one check
// together visit at most maxRecursionWork.
func (g *placeGraph) closure(level map[uintptr]int) (map[uintptr]int, int) {
	all := map[uintptr]int{}
	total := 0
	active := map[uintptr]bool{}
	var visit func(s uintptr, n int)
	visit = func(s uintptr, n int) {
		if total > MaxApplications || g.work > maxRecursionWork {
			return
		}
		g.work++
		all[s] = capped(all[s] + n)
		total = capped(total + n)
		active[s] = true
		for _, t := range g.inPlace[s] {
			if !active[t] {
				visit(t, n)
			}
		}
		delete(active, s)
	}
	for _, s := range sortedIDs(level) {
		visit(s, level[s])
	}
	return all, total
}

// descend returns what applies at each kind of child place of a place
// where here applies — a member of each name the properties list, a member
// of any other name, an element, a member name — closed under in-place
// application.
func (g *placeGraph) descend(here map[uintptr]int) []map[uintptr]int {
	named := map[string]map[uintptr]int{}
	groups := map[stepKind]map[uintptr]int{}
	type wild struct {
		st    step
		owner uintptr
		n     int
	}
	var wilds []wild
	for _, s := range sortedIDs(here) {
		n := here[s]
		for _, st := range g.children[s] {
			switch st.kind {
			case byName:
				m := named[st.label]
				if m == nil {
					m = map[uintptr]int{}
					named[st.label] = m
				}
				m[st.target] = capped(m[st.target] + n)
			case element, memberName:
				m := groups[st.kind]
				if m == nil {
					m = map[uintptr]int{}
					groups[st.kind] = m
				}
				m[st.target] = capped(m[st.target] + n)
			default:
				wilds = append(wilds, wild{st, s, n})
			}
		}
	}
	names := slices.Sorted(maps.Keys(named))
	var out []map[uintptr]int
	// A member of a listed name: its properties entries, matching patterns,
	// additionalProperties of schemas that do not list it, and
	// unevaluatedProperties.
	for _, name := range names {
		m := named[name]
		g.work += len(wilds)
		for _, w := range wilds {
			switch {
			case w.st.kind == byPattern && w.st.re != nil && !w.st.re.MatchString(name),
				w.st.kind == additional && g.props[w.owner][name]:
				continue
			}
			m[w.st.target] = capped(m[w.st.target] + w.n)
		}
		closed, _ := g.closure(m)
		out = append(out, closed)
	}
	// A member of any other name: every wildcard may apply.
	if len(wilds) > 0 {
		m := map[uintptr]int{}
		for _, w := range wilds {
			m[w.st.target] = capped(m[w.st.target] + w.n)
		}
		closed, _ := g.closure(m)
		out = append(out, closed)
	}
	for _, kind := range []stepKind{element, memberName} {
		if m := groups[kind]; m != nil {
			closed, _ := g.closure(m)
			out = append(out, closed)
		}
	}
	return out
}

// total is how many schemas apply at a place.
func total(m map[uintptr]int) int {
	n := 0
	for _, c := range m {
		n = capped(n + c)
	}
	return n
}

func sortedIDs(m map[uintptr]int) []uintptr { return slices.Sorted(maps.Keys(m)) }

func capped(n int) int { return min(n, MaxApplications+1) }

// levelKey names the counts of a level, for finding it again.
func levelKey(m map[uintptr]int) string {
	var b strings.Builder
	for _, k := range sortedIDs(m) {
		fmt.Fprintf(&b, "%x:%d,", k, m[k])
	}
	return b.String()
}
