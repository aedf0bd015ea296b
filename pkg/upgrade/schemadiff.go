package upgrade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Change is one difference between two schemas of a config object's spec
// that can break an object written for the older one.
type Change struct {
	// Kind is "removed" (a property is gone), "type" (its type changed),
	// "required" (a property is newly required and has no schema default)
	// or "constraint" (a constraint refuses values the old schema accepted).
	Kind string `json:"kind"`
	// Path is the property, a dotted path under spec ("" for spec itself);
	// "[*]" stands for every item of a list, ".*" for every value of a
	// map (additionalProperties).
	Path string `json:"path"`
	// Constraint is the keyword of a "constraint" change (enum, minimum,
	// exclusiveMaximum, maxLength, pattern, format, additionalProperties, …).
	Constraint string `json:"constraint,omitempty"`
	Detail     string `json:"detail"`
	// CoveredBy names what handles the change ("rule move message →
	// greeting.text", "packed defaults"); empty when nothing does.
	CoveredBy string `json:"coveredBy,omitempty"`
}

// compare lists the changes from schema prev to schema next (canonical
// JSON), walking properties, list items and additionalProperties
// structurally: properties, type, required and default (a structural
// schema's keywords, specs/config.md section 4), and the constraints that
// can refuse a value the old schema accepted.
func compare(prev, next []byte) ([]Change, error) {
	var p, n map[string]any
	for _, d := range []struct {
		data []byte
		to   *map[string]any
	}{{prev, &p}, {next, &n}} {
		dec := json.NewDecoder(bytes.NewReader(d.data))
		dec.UseNumber() // bounds keep the number as written
		if err := dec.Decode(d.to); err != nil {
			return nil, err
		}
	}
	var out []Change
	walk(p, n, "", &out)
	slices.SortStableFunc(out, func(a, b Change) int { return strings.Compare(a.Path+a.Kind, b.Path+b.Kind) })
	return out, nil
}

func walk(prev, next map[string]any, path string, out *[]Change) {
	constraints(prev, next, path, out)
	pp, _ := prev["properties"].(map[string]any)
	np, _ := next["properties"].(map[string]any)
	for _, k := range sortedKeys(pp) {
		p := join(path, k)
		if _, ok := np[k]; !ok {
			*out = append(*out, Change{Kind: "removed", Path: p, Detail: fmt.Sprintf("spec.%s is not in the new schema", p)})
			continue
		}
		// A property is there whatever its schema is; one that is not an
		// object (a boolean schema) has nothing more to compare.
		ps, _ := pp[k].(map[string]any)
		ns, _ := np[k].(map[string]any)
		walkSame(ps, ns, p, out)
	}
	for _, sub := range []struct{ keyword, suffix string }{{"items", "[*]"}, {"additionalProperties", ".*"}} {
		ps, pok := prev[sub.keyword].(map[string]any)
		ns, nok := next[sub.keyword].(map[string]any)
		if pok && nok {
			walkSame(ps, ns, strings.TrimPrefix(path+sub.suffix, "."), out)
		}
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

// walkSame compares the schemas of one value in both versions: its type,
// then what is inside.
func walkSame(prev, next map[string]any, path string, out *[]Change) {
	if pt, nt := typeOf(prev), typeOf(next); pt != nt {
		*out = append(*out, Change{Kind: "type", Path: path, Detail: fmt.Sprintf("%s changed type from %s to %s", field(path), pt, nt)})
		return
	}
	walk(prev, next, path, out)
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
