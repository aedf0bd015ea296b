package schema

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// maxRefHops bounds how many $ref hops ApplyDefaults follows from one schema.
const maxRefHops = 32

// Bounds of default application. A schema that refers to itself with a
// default ({properties: {a: {$ref: "#", default: {}}}}) would add levels
// forever, and defaults under shared $defs can multiply; ApplyDefaults
// refuses both instead of overflowing the stack or the memory.
const (
	// MaxDefaultDepth bounds the nesting of the defaulted value.
	MaxDefaultDepth = 100
	// MaxDefaultNodes bounds the values ApplyDefaults visits and copies.
	MaxDefaultNodes = 1_000_000
)

// defaulting is one ApplyDefaults run: the schema and the budget left.
type defaulting struct {
	s      *Schema
	budget int
}

// spend takes n from the budget, or fails once it is spent.
func (d *defaulting) spend(n int) error {
	if d.budget -= n; d.budget < 0 {
		return schemaError{fmt.Errorf("applying defaults: more than %d values visited or defaulted (do defaults under shared $defs multiply?): %w", MaxDefaultNodes, ErrLimit)}
	}
	return nil
}

// ApplyDefaults returns a deep copy of spec with the schema's "default" values
// filled in, the way the Kubernetes API server defaults a structural schema: for
// each object property that has a default and is absent (or null while the
// property is not nullable), the default is set; then every present property is
// defaulted recursively by its schema (or by additionalProperties when that is a
// schema), and every array item by "items" (or "prefixItems"/tuple "items").
//
// Fragment references ("#/$defs/x") are followed; defaults inside allOf, anyOf,
// oneOf, not and if/then/else are not applied, as in Kubernetes. spec is not
// modified; defaults are copied, never shared.
//
// The result is bounded: nesting past MaxDefaultDepth (a schema that refers
// to itself with a default) or more than MaxDefaultNodes values fail with
// an error wrapping ErrLimit and ErrSchema, whatever the schema.
func (s *Schema) ApplyDefaults(spec any) (any, error) {
	out := deepCopy(spec)
	d := &defaulting{s: s, budget: MaxDefaultNodes}
	if err := d.apply(out, s.expand([]any{s.doc}), 0); err != nil {
		return nil, err
	}
	return out, nil
}

// apply defaults x (nested depth levels deep) in place by the given schema
// objects, which all apply to x (a schema and the targets of its $refs).
func (d *defaulting) apply(x any, schemas []map[string]any, depth int) error {
	if len(schemas) == 0 {
		return nil
	}
	if err := d.spend(1); err != nil {
		return err
	}
	if depth > MaxDefaultDepth {
		return schemaError{fmt.Errorf("applying defaults: the spec nests more than %d levels deep (does a schema with a default refer to itself?): %w",
			MaxDefaultDepth, ErrLimit)}
	}
	s := d.s
	switch x := x.(type) {
	case map[string]any:
		for _, sch := range schemas {
			props, _ := sch["properties"].(map[string]any)
			for _, k := range sortedKeys(props) {
				prop := s.expand([]any{props[k]})
				def, ok := firstDefault(prop)
				if !ok {
					continue
				}
				if v, found := x[k]; !found || (v == nil && !isNullable(prop)) {
					if err := d.spend(countValues(def)); err != nil {
						return err
					}
					x[k] = deepCopy(def)
				}
			}
		}
		for k, v := range x {
			var sub []any
			for _, sch := range schemas {
				props, _ := sch["properties"].(map[string]any)
				if p, ok := props[k]; ok {
					sub = append(sub, p)
				} else if ap, ok := sch["additionalProperties"].(map[string]any); ok {
					sub = append(sub, ap)
				}
			}
			if err := d.apply(v, s.expand(sub), depth+1); err != nil {
				return err
			}
		}
	case []any:
		for i, v := range x {
			var sub []any
			for _, sch := range schemas {
				prefix, _ := sch["prefixItems"].([]any)
				switch items := sch["items"].(type) {
				case []any: // draft-07 tuple
					if i < len(items) {
						sub = append(sub, items[i])
					}
				case map[string]any:
					if i >= len(prefix) {
						sub = append(sub, items)
					}
				}
				if i < len(prefix) {
					sub = append(sub, prefix[i])
				}
			}
			if err := d.apply(v, s.expand(sub), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// countValues counts the values of v, a default, up to MaxDefaultNodes+1.
func countValues(v any) int {
	n := 1
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if n += countValues(e); n > MaxDefaultNodes {
				return n
			}
		}
	case []any:
		for _, e := range v {
			if n += countValues(e); n > MaxDefaultNodes {
				return n
			}
		}
	}
	return n
}

// expand returns the schema objects among schemas plus the targets of their
// fragment $refs, each schema once.
func (s *Schema) expand(schemas []any) []map[string]any {
	var out []map[string]any
	seen := map[uintptr]bool{}
	for _, v := range schemas {
		for hop := 0; hop <= maxRefHops; hop++ {
			sch, ok := v.(map[string]any)
			if !ok || seen[reflect.ValueOf(sch).Pointer()] {
				break
			}
			seen[reflect.ValueOf(sch).Pointer()] = true
			out = append(out, sch)
			ref, _ := sch["$ref"].(string)
			if v = s.resolve(ref); v == nil {
				break
			}
		}
	}
	return out
}

// resolve follows a "#/json/pointer" reference within the document; other
// references (anchors, $id-relative) resolve to nil.
func (s *Schema) resolve(ref string) any {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok || (frag != "" && !strings.HasPrefix(frag, "/")) {
		return nil
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil
	}
	return lookupPointer(s.doc, frag)
}

// lookupPointer returns the value at JSON pointer frag ("" or "/a/0/b") in
// doc, or nil.
func lookupPointer(doc any, frag string) any {
	cur := doc
	if frag == "" {
		return cur
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			cur = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}

func firstDefault(schemas []map[string]any) (any, bool) {
	for _, sch := range schemas {
		if def, ok := sch["default"]; ok {
			return def, true
		}
	}
	return nil, false
}

// isNullable reports whether any of the schemas allows null.
func isNullable(schemas []map[string]any) bool {
	for _, sch := range schemas {
		if sch["nullable"] == true || sch["type"] == "null" {
			return true
		}
		if types, ok := sch["type"].([]any); ok {
			for _, t := range types {
				if t == "null" {
					return true
				}
			}
		}
	}
	return false
}
