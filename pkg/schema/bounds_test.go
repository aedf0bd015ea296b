package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fanOut writes a schema whose $defs d0..d(levels-1) each refer to the next
// level width times, through keyword kw ("allOf", "anyOf", "properties").
func fanOut(levels, width int, kw string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := 0; i < levels; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		next := fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i+1)
		if i == levels-1 {
			next = `{"type":"string"}`
		}
		var list []string
		for j := 0; j < width; j++ {
			if kw == "properties" {
				list = append(list, fmt.Sprintf(`"p%d":%s`, j, next))
			} else {
				list = append(list, next)
			}
		}
		if kw == "properties" {
			fmt.Fprintf(&b, `"d%d":{"properties":{%s}}`, i, strings.Join(list, ","))
		} else {
			fmt.Fprintf(&b, `"d%d":{"%s":[%s]}`, i, kw, strings.Join(list, ","))
		}
	}
	b.WriteString("}}")
	return b.String()
}

// TestCompileRefusesCostlySchemas: schemas whose evaluation fans out
// through shared definitions are refused at Compile, whatever the keyword
// or reference form that multiplies them.
func TestCompileRefusesCostlySchemas(t *testing.T) {
	anchors := strings.NewReplacer(`"$ref":"#/$defs/d`, `"$ref":"#a`, `"d0":{`, `"d0":{"$anchor":"a0",`).Replace(fanOut(10, 5, "allOf"))
	for i := 1; i < 10; i++ {
		anchors = strings.Replace(anchors, fmt.Sprintf(`"d%d":{`, i), fmt.Sprintf(`"d%d":{"$anchor":"a%d",`, i, i), 1)
	}
	nested := `{"type":"object","properties":{"x":{"$ref":"urn:inner#/$defs/d0"}},"$defs":{"inner":{"$id":"urn:inner",` +
		strings.TrimPrefix(fanOut(10, 5, "anyOf"), `{"type":"object",`) + `}}`
	for name, src := range map[string]string{
		"allOf 5 x 10":           fanOut(10, 5, "allOf"),
		"anyOf 3 x 12":           fanOut(12, 3, "anyOf"),
		"oneOf 2 x 20":           fanOut(20, 2, "oneOf"),
		"properties 5 x 10":      fanOut(10, 5, "properties"),
		"through anchors":        anchors,
		"draft-07 definitions":   strings.ReplaceAll(fanOut(10, 5, "allOf"), "$defs", "definitions"),
		"inside an $id resource": strings.Replace(nested, `"$ref":"urn:inner#/$defs/d0"`, `"$ref":"#/$defs/inner/$defs/d0"`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Compile([]byte(src), "costly.json", DefaultLimits())
			if !errors.Is(err, ErrLimit) || !errors.Is(err, ErrSchema) {
				t.Fatalf("err = %v, want ErrLimit and ErrSchema", err)
			}
			if !strings.HasPrefix(err.Error(), "costly.json: ") || !strings.Contains(err.Error(), "subschema evaluations") {
				t.Errorf("err = %v, want it to name the file and the bound", err)
			}
		})
	}
	// The same shapes, small enough, compile and validate.
	for src, x := range map[string]any{fanOut(5, 5, "allOf"): "s", fanOut(10, 2, "properties"): map[string]any{}} {
		s, err := Compile([]byte(src), "ok.json", DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(map[string]any{"x": x}); err != nil {
			t.Error(err)
		}
	}
}

// TestApplyDefaultsBounded: defaults that recurse without end or multiply
// fail with ErrLimit instead of overflowing the stack or the memory.
func TestApplyDefaultsBounded(t *testing.T) {
	tests := []struct {
		name, schema, spec, want string
	}{
		{"root refers to itself", `{type: object, properties: {a: {$ref: "#", default: {}}}}`, `{}`, "nests more than 100 levels"},
		{"definition refers to itself", `{type: object, properties: {node: {$ref: "#/$defs/node"}}, $defs: {node: {type: object, default: {}, properties: {child: {$ref: "#/$defs/node"}}}}}`, `{}`, "nests more than 100 levels"},
		{"two definitions in turn", `{type: object, properties: {a: {$ref: "#/$defs/a", default: {}}}, $defs: {a: {properties: {b: {$ref: "#/$defs/b", default: {}}}}, b: {properties: {a: {$ref: "#/$defs/a", default: {}}}}}}`, `{}`, "nests more than 100 levels"},
		{"default holding what it defaults", `{type: object, properties: {a: {$ref: "#", default: {a: {a: {}}}}}}`, `{a: {}}`, "nests more than 100 levels"},
		{"large default on every item", `{type: object, properties: {l: {type: array, items: {type: object, properties: {big: {default: [` + strings.Repeat("0,", 9999) + `0]}}}}}}`,
			`{l: [` + strings.Repeat("{},", 199) + `{}]}`, "more than 1000000 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompileString(t, tt.schema)
			_, err := s.ApplyDefaults(mustDecode(t, tt.spec))
			if !errors.Is(err, ErrLimit) || !errors.Is(err, ErrSchema) {
				t.Fatalf("err = %v, want ErrLimit and ErrSchema", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestCompileRefusesRecursiveFanOut: a recursive schema whose recursion
// applies several times at the same place of a value multiplies its work at
// every level of the value; it is refused at Compile. Recursion into
// different places (trees, lists, JSON-like values) is accepted.
func TestCompileRefusesRecursiveFanOut(t *testing.T) {
	for name, src := range map[string]string{
		"allOf of the root twice":    `{type: object, properties: {c: {allOf: [{$ref: "#"}, {$ref: "#"}]}}}`,
		"anyOf through array items":  `{type: object, properties: {l: {$ref: "#/$defs/l"}}, $defs: {l: {type: array, items: {anyOf: [{$ref: "#/$defs/l"}, {$ref: "#/$defs/l"}, {$ref: "#/$defs/l"}]}}}}`,
		"property and pattern agree": `{type: object, properties: {x: {$ref: "#"}}, patternProperties: {"^x": {$ref: "#"}}}`,
		"two definitions in turn":    `{type: object, properties: {a: {$ref: "#/$defs/a"}}, $defs: {a: {properties: {b: {oneOf: [{$ref: "#/$defs/b"}, {$ref: "#/$defs/b"}]}}}, b: {properties: {a: {$ref: "#/$defs/a"}}}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Compile([]byte(src), "recursive.yaml", DefaultLimits())
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "recursive.yaml: ") || !strings.Contains(err.Error(), "at one place") {
				t.Fatalf("err = %v, want ErrLimit naming the file and the place", err)
			}
		})
	}
	for name, src := range map[string]string{
		"binary tree":   `{type: object, properties: {left: {$ref: "#"}, right: {$ref: "#"}, v: {type: integer}}}`,
		"linked list":   `{type: object, properties: {next: {$ref: "#"}}}`,
		"JSON value":    `{type: object, additionalProperties: {$ref: "#/$defs/v"}, $defs: {v: {anyOf: [{type: object, additionalProperties: {$ref: "#/$defs/v"}}, {type: array, items: {$ref: "#/$defs/v"}}, {type: [string, number, boolean, "null"]}]}}}`,
		"mutual":        `{type: object, properties: {a: {$ref: "#/$defs/a"}}, $defs: {a: {properties: {b: {$ref: "#/$defs/b"}}}, b: {properties: {a: {$ref: "#/$defs/a"}}}}}`,
		"in-place loop": `{type: object, properties: {a: {$ref: "#/properties/b"}, b: {$ref: "#/properties/a"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Compile([]byte(src), "ok.yaml", DefaultLimits()); err != nil {
				t.Fatal(err)
			}
		})
	}
}
