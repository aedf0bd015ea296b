package upgrade

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Change is one difference between two schemas of a config object's spec
// that can break an object written for the older one.
type Change struct {
	// Kind is "removed" (a property is gone), "type" (its type changed) or
	// "required" (a property is newly required and has no schema default).
	Kind string `json:"kind"`
	// Path is the property, a dotted path under spec.
	Path   string `json:"path"`
	Detail string `json:"detail"`
	// CoveredBy names what handles the change ("rule move message →
	// greeting.text", "packed defaults"); empty when nothing does.
	CoveredBy string `json:"coveredBy,omitempty"`
}

// compare lists the changes from schema prev to schema next (canonical
// JSON), walking properties structurally: properties, type, required and
// default (a structural schema's keywords, specs/config.md section 4).
func compare(prev, next []byte) ([]Change, error) {
	var p, n map[string]any
	if err := json.Unmarshal(prev, &p); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(next, &n); err != nil {
		return nil, err
	}
	var out []Change
	walk(p, n, "", &out)
	slices.SortStableFunc(out, func(a, b Change) int { return strings.Compare(a.Path+a.Kind, b.Path+b.Kind) })
	return out, nil
}

func walk(prev, next map[string]any, path string, out *[]Change) {
	pp, _ := prev["properties"].(map[string]any)
	np, _ := next["properties"].(map[string]any)
	for _, k := range sortedKeys(pp) {
		p := join(path, k)
		ps, _ := pp[k].(map[string]any)
		ns, ok := np[k].(map[string]any)
		if !ok {
			*out = append(*out, Change{Kind: "removed", Path: p, Detail: fmt.Sprintf("spec.%s is not in the new schema", p)})
			continue
		}
		if pt, nt := typeOf(ps), typeOf(ns); pt != nt {
			*out = append(*out, Change{Kind: "type", Path: p, Detail: fmt.Sprintf("spec.%s changed type from %s to %s", p, pt, nt)})
			continue
		}
		walk(ps, ns, p, out)
	}
	wasRequired := stringSet(prev["required"])
	for _, k := range sortedKeys(stringSet(next["required"])) {
		if _, was := wasRequired[k]; was {
			continue
		}
		ns, _ := np[k].(map[string]any)
		if _, hasDefault := ns["default"]; hasDefault {
			continue
		}
		p := join(path, k)
		*out = append(*out, Change{Kind: "required", Path: p, Detail: fmt.Sprintf("spec.%s is newly required and the schema gives no default", p)})
	}
}

func typeOf(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, e := range t {
			parts = append(parts, fmt.Sprint(e))
		}
		slices.Sort(parts)
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "any"
}

func stringSet(v any) map[string]any {
	out := map[string]any{}
	l, _ := v.([]any)
	for _, e := range l {
		if s, ok := e.(string); ok {
			out[s] = true
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
