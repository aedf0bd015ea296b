package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/schema"
)

// condition is a parsed `when`: a boolean field ("a.b"), or an enum field
// and the values that match it ("a.b in [x, y]", specs/config.md section 10).
type condition struct {
	text   string
	path   []string
	values []string // nil: a boolean field
}

var (
	dottedPath = `[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`
	boolWhen   = regexp.MustCompile(`^` + dottedPath + `$`)
	enumWhen   = regexp.MustCompile(`^\s*(` + dottedPath + `)\s+in\s+\[([^\[\]]*)\]\s*$`)
	enumValue  = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
)

// parseCondition reads a `when`. enum says whether the "in [...]" form is
// allowed (addonpack.dev/v1alpha2).
func parseCondition(s string, enum bool) (condition, error) {
	if boolWhen.MatchString(s) {
		return condition{text: s, path: strings.Split(s, ".")}, nil
	}
	m := enumWhen.FindStringSubmatch(s)
	if m == nil {
		return condition{}, fmt.Errorf("%q: want a field (a.b) or a field and enum values (a.b in [x, y])", s)
	}
	if !enum {
		return condition{}, fmt.Errorf("%q: enum matches (in [...]) need apiVersion addonpack.dev/v1alpha2", s)
	}
	c := condition{text: s, path: strings.Split(m[1], ".")}
	for _, v := range strings.Split(m[2], ",") {
		v = strings.TrimSpace(v)
		if !enumValue.MatchString(v) {
			return condition{}, fmt.Errorf("%q: value %q: want letters, digits, '_', '.' or '-'", s, v)
		}
		if slices.Contains(c.values, v) {
			return condition{}, fmt.Errorf("%q: value %q is listed twice", s, v)
		}
		c.values = append(c.values, v)
	}
	return c, nil
}

// field is the dotted path the condition reads.
func (c condition) field() string { return strings.Join(c.path, ".") }

// holds evaluates the condition on a resolved spec. A boolean field holds
// when true; an enum field when its value is one of the values. Absent or
// null fields (or an intermediate value that is not an object) do not hold;
// a value of another type is an error.
func (c condition) holds(spec any) (bool, error) {
	v, ok := schema.Lookup(spec, c.path)
	if !ok || v == nil {
		return false, nil
	}
	if c.values == nil {
		b, ok := v.(bool)
		if !ok {
			raw, _ := json.Marshal(v)
			return false, fmt.Errorf("is %s, not a boolean", raw)
		}
		return b, nil
	}
	s, ok := v.(string)
	if !ok {
		raw, _ := json.Marshal(v)
		return false, fmt.Errorf("is %s, not a string", raw)
	}
	return slices.Contains(c.values, s), nil
}

// checkAgainst makes sure the condition reads a property of the schema
// (doc, the schema as JSON) of the right type: a boolean, or a string enum
// holding every listed value. It returns the enum's values ("" for a
// boolean field).
func (c condition) checkAgainst(doc map[string]any, schemaFile string) ([]string, error) {
	node := doc
	for j, key := range c.path {
		props, _ := node["properties"].(map[string]any)
		next, ok := props[key].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q: %s has no property %q", c.text, schemaFile, strings.Join(c.path[:j+1], "."))
		}
		node = next
	}
	if c.values == nil {
		if typ, _ := node["type"].(string); typ != "boolean" {
			return nil, fmt.Errorf("%q: property in %s has type %v, want boolean", c.text, schemaFile, node["type"])
		}
		return nil, nil
	}
	raw, _ := node["enum"].([]any)
	var enum []string
	for _, e := range raw {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%q: property %s in %s: enum holds %v, want only strings", c.text, c.field(), schemaFile, e)
		}
		enum = append(enum, s)
	}
	if len(enum) == 0 {
		return nil, fmt.Errorf("%q: property %s in %s has no enum, want a string enum", c.text, c.field(), schemaFile)
	}
	for _, v := range c.values {
		if !slices.Contains(enum, v) {
			return nil, fmt.Errorf("%q: %q is not a value of the enum of %s in %s %q", c.text, v, c.field(), schemaFile, enum)
		}
	}
	return enum, nil
}
