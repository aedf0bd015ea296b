package upgrade

import (
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/spec"
)

// TestConstraints: every tightened constraint is a change naming the path,
// the keyword and the old and new constraint; a loosened or unchanged one
// is none.
func TestConstraints(t *testing.T) {
	for _, tt := range []struct {
		name, prev, next string
		want             string // "keyword: detail; …", empty for no change
	}{
		{"enum value removed", `{"type":"string","enum":["a","b","c"]}`, `{"type":"string","enum":["a","c"]}`, `enum: spec.p: enum no longer allows "b"`},
		{"enum added", `{"type":"string"}`, `{"type":"string","enum":["a","b"]}`, `enum: spec.p: enum added: only "a", "b" allowed`},
		{"enum value added", `{"type":"string","enum":["a"]}`, `{"type":"string","enum":["b","a"]}`, ""},
		{"enum dropped", `{"type":"string","enum":["a"]}`, `{"type":"string"}`, ""},
		{"enum of numbers by value", `{"type":"integer","enum":[1,2]}`, `{"type":"integer","enum":[2,1]}`, ""},
		{"const added", `{"type":"string"}`, `{"type":"string","const":"x"}`, `const: spec.p: const is now "x"`},
		{"minimum raised", `{"type":"integer","minimum":1}`, `{"type":"integer","minimum":2}`, "minimum: spec.p: lower bound raised from >= 1 to >= 2"},
		{"minimum added", `{"type":"integer"}`, `{"type":"integer","minimum":0}`, "minimum: spec.p: lower bound raised from none to >= 0"},
		{"minimum lowered", `{"type":"integer","minimum":2}`, `{"type":"integer","minimum":1}`, ""},
		{"minimum made exclusive", `{"type":"number","minimum":1}`, `{"type":"number","exclusiveMinimum":1}`, "exclusiveMinimum: spec.p: lower bound raised from >= 1 to > 1"},
		{"exclusive minimum made inclusive", `{"type":"number","exclusiveMinimum":1}`, `{"type":"number","minimum":1}`, ""},
		{"exclusiveMinimum raised", `{"type":"number","exclusiveMinimum":1}`, `{"type":"number","exclusiveMinimum":1.5}`, "exclusiveMinimum: spec.p: lower bound raised from > 1 to > 1.5"},
		{"maximum lowered", `{"type":"integer","maximum":10}`, `{"type":"integer","maximum":5}`, "maximum: spec.p: upper bound lowered from <= 10 to <= 5"},
		{"maximum raised", `{"type":"integer","maximum":5}`, `{"type":"integer","maximum":10}`, ""},
		{"maximum made exclusive", `{"type":"integer","maximum":5}`, `{"type":"integer","exclusiveMaximum":5}`, "exclusiveMaximum: spec.p: upper bound lowered from <= 5 to < 5"},
		{"exclusiveMaximum above maximum", `{"type":"integer","maximum":5}`, `{"type":"integer","maximum":5,"exclusiveMaximum":6}`, ""},
		{"large bound as written", `{"type":"integer","maximum":100000000}`, `{"type":"integer","maximum":10000000}`, "maximum: spec.p: upper bound lowered from <= 100000000 to <= 10000000"},
		{"multipleOf added", `{"type":"integer"}`, `{"type":"integer","multipleOf":2}`, "multipleOf: spec.p: multipleOf is now 2 (was none)"},
		{"multipleOf divides the old one", `{"type":"integer","multipleOf":4}`, `{"type":"integer","multipleOf":2}`, ""},
		{"multipleOf changed", `{"type":"integer","multipleOf":2}`, `{"type":"integer","multipleOf":3}`, "multipleOf: spec.p: multipleOf is now 3 (was 2)"},
		{"minLength raised", `{"type":"string","minLength":1}`, `{"type":"string","minLength":3}`, "minLength: spec.p: minLength raised from 1 to 3"},
		{"minLength lowered", `{"type":"string","minLength":3}`, `{"type":"string","minLength":1}`, ""},
		{"maxLength lowered", `{"type":"string","maxLength":256}`, `{"type":"string","maxLength":63}`, "maxLength: spec.p: maxLength lowered from 256 to 63"},
		{"maxLength added", `{"type":"string"}`, `{"type":"string","maxLength":63}`, "maxLength: spec.p: maxLength lowered from none to 63"},
		{"maxLength raised", `{"type":"string","maxLength":63}`, `{"type":"string","maxLength":256}`, ""},
		{"minItems raised", `{"type":"array"}`, `{"type":"array","minItems":1}`, "minItems: spec.p: minItems raised from none to 1"},
		{"maxItems lowered", `{"type":"array","maxItems":10}`, `{"type":"array","maxItems":3}`, "maxItems: spec.p: maxItems lowered from 10 to 3"},
		{"maxItems raised", `{"type":"array","maxItems":3}`, `{"type":"array","maxItems":10}`, ""},
		{"uniqueItems", `{"type":"array"}`, `{"type":"array","uniqueItems":true}`, "uniqueItems: spec.p: items must now be unique"},
		{"maxProperties lowered", `{"type":"object","maxProperties":5}`, `{"type":"object","maxProperties":2}`, "maxProperties: spec.p: maxProperties lowered from 5 to 2"},
		{"pattern added", `{"type":"string"}`, `{"type":"string","pattern":"^[a-z]+$"}`, `pattern: spec.p: pattern added: "^[a-z]+$"`},
		{"pattern changed", `{"type":"string","pattern":"^[a-z]+$"}`, `{"type":"string","pattern":"^[a-z0-9]+$"}`, `pattern: spec.p: pattern changed from "^[a-z]+$" to "^[a-z0-9]+$"`},
		{"pattern dropped", `{"type":"string","pattern":"^[a-z]+$"}`, `{"type":"string"}`, ""},
		{"asserted format added", `{"type":"string"}`, `{"type":"string","format":"hostname"}`, "format: spec.p: format added: hostname"},
		{"asserted format changed", `{"type":"string","format":"ipv4"}`, `{"type":"string","format":"ipv6"}`, "format: spec.p: format changed from ipv4 to ipv6"},
		{"unasserted format added", `{"type":"integer"}`, `{"type":"integer","format":"int32"}`, ""},
		{"format dropped", `{"type":"string","format":"hostname"}`, `{"type":"string"}`, ""},
		{"no longer nullable", `{"type":"string","nullable":true}`, `{"type":"string"}`, "nullable: spec.p: no longer nullable: null is refused"},
		{"additionalProperties false", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, "additionalProperties: spec.p: additionalProperties is now false: only a are allowed"},
		{"additionalProperties true to false", `{"type":"object","additionalProperties":true}`, `{"type":"object","additionalProperties":false}`, "additionalProperties: spec.p: additionalProperties is now false: no properties are allowed"},
		{"additionalProperties constrained", `{"type":"object"}`, `{"type":"object","additionalProperties":{"type":"string"}}`, "additionalProperties: spec.p: additionalProperties newly constrained: properties not listed must now match its schema"},
		{"additionalProperties empty schema", `{"type":"object"}`, `{"type":"object","additionalProperties":{}}`, ""},
		{"items constrained", `{"type":"array"}`, `{"type":"array","items":{"type":"string"}}`, "items: spec.p: items newly constrained: every item must now match its schema"},
		{"items opened", `{"type":"array","items":{"type":"string"}}`, `{"type":"array"}`, ""},
		{"additionalProperties opened", `{"type":"object","additionalProperties":false}`, `{"type":"object"}`, ""},
		{"map values tightened", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"type":"object","additionalProperties":{"type":"string","maxLength":63}}`, "maxLength: spec.p.*: maxLength lowered from none to 63"},
		{"map values retyped", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"type":"object","additionalProperties":{"type":"integer"}}`, "type: spec.p.* changed type from string to integer"},
		{"list items tightened", `{"type":"array","items":{"type":"string","enum":["a","b"]}}`, `{"type":"array","items":{"type":"string","enum":["a"]}}`, `enum: spec.p[*]: enum no longer allows "b"`},
		{"list item property removed", `{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}`, `{"type":"array","items":{"type":"object"}}`, "removed: spec.p[*].name is not in the new schema"},
		{"several at once", `{"type":"integer","minimum":0,"maximum":10}`, `{"type":"integer","minimum":1,"maximum":9}`, "minimum: spec.p: lower bound raised from >= 0 to >= 1; maximum: spec.p: upper bound lowered from <= 10 to <= 9"},
		{"unchanged", `{"type":"string","enum":["a"],"minLength":1,"maxLength":3,"pattern":"a","format":"hostname"}`, `{"type":"string","enum":["a"],"minLength":1,"maxLength":3,"pattern":"a","format":"hostname"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wrap := func(p string) []byte { return []byte(`{"type":"object","properties":{"p":` + p + `}}`) }
			changes, err := compare(wrap(tt.prev), wrap(tt.next))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				kw := c.Kind
				if c.Kind == "constraint" {
					kw = c.Constraint
				} else if c.Constraint != "" {
					t.Errorf("%s change with constraint %q", c.Kind, c.Constraint)
				}
				got = append(got, kw+": "+c.Detail)
			}
			if g := strings.Join(got, "; "); g != tt.want {
				t.Errorf("changes\n%s\nwant\n%s", g, tt.want)
			}
		})
	}
}

// TestConstraintAtTheTop: the top-level object's own constraints are
// compared too (path "", shown as spec).
func TestConstraintAtTheTop(t *testing.T) {
	changes, err := compare([]byte(`{"type":"object","properties":{"a":{"type":"string"}}}`),
		[]byte(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != "" || changes[0].Detail != "spec: additionalProperties is now false: only a are allowed" {
		t.Fatalf("changes %+v", changes)
	}
}

// TestCoverConstraint: a tightened constraint is covered like a retyped
// property — a rule that moves, renames, deletes or sets the value (or an
// object or list holding it), or a fail whose if names it — and not by a
// default, which leaves a present value as it is.
func TestCoverConstraint(t *testing.T) {
	rules := []spec.Rule{
		{If: "has(spec.replicas) && spec.replicas > 5", Fail: &spec.FailRule{Message: "at most 5"}},
		{Set: &spec.SetRule{Path: "language", Expression: "spec.language == 'es' ? 'en' : spec.language"}},
		{Delete: &spec.DeleteRule{Path: "legacy"}},
		{Move: &spec.MoveRule{From: "old", To: "new"}},
		{Default: &spec.DefaultRule{Path: "name", Value: []byte(`"x"`)}},
		{If: "spec.args.exists(a, a.size() > 63)", Fail: &spec.FailRule{Message: "args too long"}},
	}
	for _, tt := range []struct{ path, want string }{
		{"replicas", "rule fail: at most 5 (if has(spec.replicas) && spec.replicas > 5)"},
		{"language", "rule set language = spec.language == 'es' ? 'en' : spec.language"},
		{"legacy.mode", "rule delete legacy"},
		{"legacy[*]", "rule delete legacy"},
		{"old", "rule move old → new"},
		{"args[*]", "rule fail: args too long (if spec.args.exists(a, a.size() > 63))"},
		{"name", ""},
		{"labels.*", ""},
	} {
		if got := cover(Change{Kind: "constraint", Path: tt.path}, rules, map[string]any{"name": "x"}); got != tt.want {
			t.Errorf("cover(constraint %s) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
