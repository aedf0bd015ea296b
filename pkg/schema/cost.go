package schema

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
)

// MaxEvaluations bounds the evaluation cost of a schema: how many subschema
// evaluations validating one value may take, counting every schema a
// reference leads to each time it is referred to. The validator evaluates a
// shared $defs entry anew at every reference, so a 2 KB schema whose $defs
// refer to each other five times a level costs 5^10 evaluations at ten
// levels (tens of seconds per value). Compile refuses a schema whose cost is
// over the bound, in time linear in its size. Arrays and maps of arbitrary
// length multiply the cost by their length, which the config's own size
// bounds.
const MaxEvaluations = 100_000

// schemaCost computes the evaluation cost of a document: 1 for each schema
// object plus the cost of each subschema and of each reference's target,
// each schema costed once. A reference back into a schema being costed (a
// recursive schema) counts 1: that recursion is bounded by the depth of the
// value.
type schemaCost struct {
	memo     map[uintptr]int
	active   map[uintptr]bool
	resource map[uintptr]map[string]any // schema -> the resource ("$id" or the root) its "#..." references resolve in
	anchors  map[anchorKey]map[string]any
}

type anchorKey struct {
	resource uintptr
	name     string
}

func id(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

// checkCost refuses doc when its evaluation cost is over MaxEvaluations.
func checkCost(doc map[string]any) error {
	c := &schemaCost{memo: map[uintptr]int{}, active: map[uintptr]bool{},
		resource: map[uintptr]map[string]any{}, anchors: map[anchorKey]map[string]any{}}
	c.index(doc, doc, 0)
	if cost := c.cost(doc); cost > MaxEvaluations {
		return fmt.Errorf("evaluating the schema takes more than %d subschema evaluations per value (do shared $defs refer to each other many times over?): %w",
			MaxEvaluations, ErrLimit)
	}
	return c.checkRecursion(doc)
}

// index records the resource and the anchors of obj and its subschemas.
// depth stops a document that contains itself (YAML aliases); Compile has
// bounded the depth before.
func (c *schemaCost) index(obj, resource map[string]any, depth int) {
	if _, seen := c.resource[id(obj)]; seen || depth > 1000 {
		return
	}
	if s, ok := obj["$id"].(string); ok && !strings.HasPrefix(s, "#") {
		resource = obj
	}
	c.resource[id(obj)] = resource
	for _, kw := range []string{"$anchor", "$dynamicAnchor", "$id"} {
		if name, ok := obj[kw].(string); ok {
			if kw == "$id" { // draft-07 names an anchor with "$id": "#name"
				if name, ok = strings.CutPrefix(name, "#"); !ok {
					continue
				}
			}
			c.anchors[anchorKey{id(resource), name}] = obj
		}
	}
	eachSubschema(obj, func(_ string, sub map[string]any) { c.index(sub, resource, depth+1) })
}

// cost returns the evaluation cost of obj, at most MaxEvaluations+1.
func (c *schemaCost) cost(obj map[string]any) int {
	key := id(obj)
	if v, ok := c.memo[key]; ok {
		return v
	}
	if c.active[key] {
		return 1
	}
	c.active[key] = true
	defer delete(c.active, key)
	total := 1
	add := func(_ string, sub map[string]any) {
		if total <= MaxEvaluations {
			total += c.cost(sub)
		}
	}
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		if ref, ok := obj[kw].(string); ok {
			if target := c.target(obj, ref); target != nil {
				add(kw, target)
			}
		}
	}
	eachSubschema(obj, add)
	total = min(total, MaxEvaluations+1)
	c.memo[key] = total
	return total
}

// target resolves a "#/pointer" or "#anchor" reference of obj within obj's
// resource; nil when it does not resolve (Compile reports that).
func (c *schemaCost) target(obj map[string]any, ref string) map[string]any {
	resource := c.resource[id(obj)]
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok || resource == nil {
		return nil
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return c.anchors[anchorKey{id(resource), frag}]
	}
	m, _ := lookupPointer(resource, frag).(map[string]any)
	return m
}
