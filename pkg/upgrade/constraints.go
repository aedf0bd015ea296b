package upgrade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/addonpack/addonpack/pkg/schema"
)

// constraints appends a "constraint" change for each keyword of schema next
// that refuses a value schema prev accepted (specs/config.md section 9.7):
// an enum value gone, a bound raised or lowered, a pattern or an asserted
// format added or changed, additionalProperties turned false or
// constrained. A loosened or unchanged constraint is no change.
func constraints(prev, next map[string]any, path string, out *[]Change) {
	add := func(keyword, format string, args ...any) {
		*out = append(*out, Change{Kind: "constraint", Path: path, Constraint: keyword,
			Detail: field(path) + ": " + fmt.Sprintf(format, args...)})
	}
	if ne, ok := next["enum"].([]any); ok {
		if pe, had := prev["enum"].([]any); !had {
			add("enum", "enum added: only %s allowed", values(ne))
		} else if gone := missing(pe, ne); len(gone) > 0 {
			add("enum", "enum no longer allows %s", values(gone))
		}
	}
	if nc, ok := next["const"]; ok {
		if pc, had := prev["const"]; !had || canon(pc) != canon(nc) {
			add("const", "const is now %s", canon(nc))
		}
	}
	if pl, nl := lowerBound(prev), lowerBound(next); nl.set && (!pl.set || nl.v > pl.v || nl.v == pl.v && nl.exclusive && !pl.exclusive) {
		add(nl.keyword, "lower bound raised from %s to %s", pl, nl)
	}
	if pu, nu := upperBound(prev), upperBound(next); nu.set && (!pu.set || nu.v < pu.v || nu.v == pu.v && nu.exclusive && !pu.exclusive) {
		add(nu.keyword, "upper bound lowered from %s to %s", pu, nu)
	}
	if pm, nm := number(prev["multipleOf"]), number(next["multipleOf"]); nm.set && nm.v > 0 && (!pm.set || math.Mod(pm.v, nm.v) != 0) {
		add("multipleOf", "multipleOf is now %s (was %s)", nm.text, pm)
	}
	for _, kw := range []string{"minLength", "minItems", "minProperties"} {
		if p, n := number(prev[kw]), number(next[kw]); n.set && (!p.set || n.v > p.v) {
			add(kw, "%s raised from %s to %s", kw, p, n.text)
		}
	}
	for _, kw := range []string{"maxLength", "maxItems", "maxProperties"} {
		if p, n := number(prev[kw]), number(next[kw]); n.set && (!p.set || n.v < p.v) {
			add(kw, "%s lowered from %s to %s", kw, p, n.text)
		}
	}
	if next["uniqueItems"] == true && prev["uniqueItems"] != true {
		add("uniqueItems", "items must now be unique")
	}
	if np, ok := next["pattern"].(string); ok && np != prev["pattern"] {
		if pp, had := prev["pattern"].(string); had {
			add("pattern", "pattern changed from %q to %q", pp, np)
		} else {
			add("pattern", "pattern added: %q", np)
		}
	}
	if nf, ok := next["format"].(string); ok && nf != prev["format"] && schema.AssertsFormat(nf) {
		if pf, had := prev["format"].(string); had {
			add("format", "format changed from %s to %s", pf, nf)
		} else {
			add("format", "format added: %s", nf)
		}
	}
	if prev["nullable"] == true && next["nullable"] != true {
		add("nullable", "no longer nullable: null is refused")
	}
	if na, ok := next["additionalProperties"].(bool); ok && !na && prev["additionalProperties"] != false {
		props, _ := next["properties"].(map[string]any)
		add("additionalProperties", "additionalProperties is now false: %s allowed", names(props))
	}
	if newlyConstrained(prev["additionalProperties"], next["additionalProperties"]) {
		add("additionalProperties", "additionalProperties newly constrained: properties not listed must now match its schema")
	}
	if newlyConstrained(prev["items"], next["items"]) {
		add("items", "items newly constrained: every item must now match its schema")
	}
}

// newlyConstrained reports a subschema (items, additionalProperties) that
// is now a schema with keywords where it was absent, true or empty.
func newlyConstrained(prev, next any) bool {
	n, ok := next.(map[string]any)
	if !ok || len(n) == 0 {
		return false
	}
	p, ok := prev.(map[string]any)
	return prev == nil || prev == true || ok && len(p) == 0
}

// field names path under spec, as messages show it.
func field(path string) string {
	if path == "" {
		return "spec"
	}
	return "spec." + path
}

// bound is a numeric bound of a schema; set is false when there is none.
type bound struct {
	set       bool
	v         float64
	text      string // the number as written
	exclusive bool
	keyword   string
}

func (b bound) String() string {
	if !b.set {
		return "none"
	}
	switch b.keyword {
	case "minimum":
		return ">= " + b.text
	case "exclusiveMinimum":
		return "> " + b.text
	case "maximum":
		return "<= " + b.text
	case "exclusiveMaximum":
		return "< " + b.text
	}
	return b.text
}

// number reads a JSON number (json.Number, as compare decodes).
func number(v any) bound {
	n, ok := v.(json.Number)
	if !ok {
		return bound{}
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return bound{}
	}
	return bound{set: true, v: f, text: string(n)}
}

// lowerBound is the tighter of minimum and exclusiveMinimum.
func lowerBound(s map[string]any) bound {
	in, ex := number(s["minimum"]), number(s["exclusiveMinimum"])
	in.keyword, ex.keyword, ex.exclusive = "minimum", "exclusiveMinimum", true
	if ex.set && (!in.set || ex.v >= in.v) {
		return ex
	}
	return in
}

// upperBound is the tighter of maximum and exclusiveMaximum.
func upperBound(s map[string]any) bound {
	in, ex := number(s["maximum"]), number(s["exclusiveMaximum"])
	in.keyword, ex.keyword, ex.exclusive = "maximum", "exclusiveMaximum", true
	if ex.set && (!in.set || ex.v <= in.v) {
		return ex
	}
	return in
}

// canon is v as canonical JSON, to compare enum and const values.
func canon(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// missing are the values of prev not in next. Each value is encoded once:
// comparing every pair would encode both enums' values len(prev) times
// len(next) times.
func missing(prev, next []any) []any {
	in := make(map[string]bool, len(next))
	for _, n := range next {
		in[canon(n)] = true
	}
	var out []any
	for _, p := range prev {
		if !in[canon(p)] {
			out = append(out, p)
		}
	}
	return out
}

func values(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = canon(v)
	}
	return strings.Join(parts, ", ")
}

func names(props map[string]any) string {
	if len(props) == 0 {
		return "no properties are"
	}
	return "only " + strings.Join(sortedKeys(props), ", ") + " are"
}
