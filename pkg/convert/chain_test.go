package convert_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

const group = "greeter.addons.example.com/"

// config builds a config type whose older versions are vs (oldest first),
// each step with the rules given in YAML.
func config(t testing.TB, current string, steps ...[2]string) *spec.Config {
	t.Helper()
	c := &spec.Config{APIVersion: group + current, Kind: "GreeterConfig", Schema: "s.yaml", Conversion: &spec.Conversion{}}
	for i, st := range steps {
		to := group + current
		if i+1 < len(steps) {
			to = group + steps[i+1][0]
		}
		var rules []spec.Rule
		js, err := yaml.YAMLToJSON([]byte(st[1]))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(js, &rules); err != nil {
			t.Fatal(err)
		}
		c.Conversion.Versions = append(c.Conversion.Versions, spec.ConfigVersion{APIVersion: group + st[0], Schema: st[0] + ".yaml", To: to, Rules: rules})
	}
	return c
}

func mustNew(t testing.TB, c *spec.Config) *convert.Chain {
	t.Helper()
	ch, err := convert.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// specOf decodes a spec written in YAML the way config objects are decoded.
func specOf(t testing.TB, y string) any {
	t.Helper()
	v, err := schema.Decode([]byte(y), "spec")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func canonicalJSON(t testing.TB, v any) string {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

func TestRuleKinds(t *testing.T) {
	tests := []struct {
		name, rules, in, want, wantRules string
	}{
		{"move to a new object", `[{move: {from: message, to: greeting.text}}]`, `{message: hi, replicas: 2}`, `{"greeting":{"text":"hi"},"replicas":2}`, "move message → greeting.text"},
		{"move of an absent field does nothing", `[{move: {from: message, to: greeting.text}}]`, `{replicas: 2}`, `{"replicas":2}`, ""},
		{"move out of a nested object", `[{move: {from: a.b, to: c}}]`, `{a: {b: 1, x: 2}}`, `{"a":{"x":2},"c":1}`, "move a.b → c"},
		{"rename in place", `[{rename: {path: server.listen, to: port}}]`, `{server: {listen: 80}}`, `{"server":{"port":80}}`, "rename server.listen → server.port"},
		{"default when absent", `[{default: {path: greeting.style, value: {loud: false}}}]`, `{greeting: {text: hi}}`, `{"greeting":{"style":{"loud":false},"text":"hi"}}`, `default greeting.style = {"loud":false}`},
		{"default keeps a present value", `[{default: {path: replicas, value: 1}}]`, `{replicas: 3}`, `{"replicas":3}`, ""},
		{"default keeps a present null", `[{default: {path: replicas, value: 1}}]`, `{replicas: null}`, `{"replicas":null}`, ""},
		{"delete", `[{delete: {path: legacy.mode}}]`, `{legacy: {mode: x, keep: 1}}`, `{"legacy":{"keep":1}}`, "delete legacy.mode"},
		{"delete of an absent field does nothing", `[{delete: {path: legacy.mode}}]`, `{legacy: 1}`, `{"legacy":1}`, ""},
		{"set from CEL", `[{set: {path: replicas, expression: "spec.replicas * 2"}}]`, `{replicas: 3}`, `{"replicas":6}`, "set replicas = spec.replicas * 2"},
		{"set a map to a sorted list (kubeadm extraArgs)", `[{if: "has(spec.extraArgs)", set: {path: extraArgs, expression: "spec.extraArgs.map(k, {'name': k, 'value': spec.extraArgs[k]}).sortBy(e, e.name)"}}]`,
			`{extraArgs: {v: "2", bind: 0.0.0.0, a: x}}`, `{"extraArgs":[{"name":"a","value":"x"},{"name":"bind","value":"0.0.0.0"},{"name":"v","value":"2"}]}`, "set extraArgs = spec.extraArgs.map(k, {'name': k, 'value': spec.extraArgs[k]}).sortBy(e, e.name) (if has(spec.extraArgs))"},
		{"if false skips", `[{if: "has(spec.x)", delete: {path: yy}}]`, `{yy: 1}`, `{"yy":1}`, ""},
		{"set a double that is integral", `[{set: {path: r, expression: "2.0 * 3.0"}}]`, `{}`, `{"r":6}`, "set r = 2.0 * 3.0"},
		{"optional value", `[{set: {path: text, expression: "spec.?greeting.text.orValue('hello')"}}]`, `{}`, `{"text":"hello"}`, "set text = spec.?greeting.text.orValue('hello')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", tt.rules}))
			in := specOf(t, tt.in)
			before := canonicalJSON(t, in)
			res, err := ch.ConvertStable(group+"v1alpha1", in, "values.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := canonicalJSON(t, res.Spec); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if canonicalJSON(t, in) != before {
				t.Error("the input was modified")
			}
			if res.APIVersion != group+"v1beta1" || len(res.Steps) != 1 || strings.Join(res.Steps[0].Rules, "; ") != tt.wantRules {
				t.Errorf("report %+v, want rules %q", res.Steps, tt.wantRules)
			}
			if res.Summary() != "converted v1alpha1 → v1beta1" {
				t.Errorf("summary %q", res.Summary())
			}
		})
	}
}

func TestRuleErrors(t *testing.T) {
	tests := []struct{ name, rules, in, want string }{
		{"fail with a message", `[{if: "has(spec.shout) && spec.shout", fail: {message: "shout was removed in v1beta1: write the greeting in capitals"}}]`, `{shout: true}`,
			`values.yaml: conversion failed: cannot convert v1alpha1 → v1beta1: shout was removed in v1beta1: write the greeting in capitals`},
		{"move onto a set field", `[{move: {from: a, to: b}}]`, `{a: 1, b: 2}`, `move a → b: b is already set`},
		{"set under a scalar", `[{set: {path: a.b, expression: "1"}}]`, `{a: 1}`, `set a.b: a is not an object`},
		{"a result that is not JSON", `[{set: {path: a, expression: "duration('1s')"}}]`, `{}`, `result is google.protobuf.Duration, not a JSON value`},
		{"a CEL runtime error", `[{set: {path: a, expression: "spec.missing + 1"}}]`, `{}`, `no such key: missing`},
		{"a non-finite double", `[{set: {path: a, expression: "1.0 / 0.0"}}]`, `{}`, `is not a JSON number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", tt.rules}))
			_, err := ch.Convert(group+"v1alpha1", specOf(t, tt.in), "values.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if !errors.Is(err, convert.ErrConvert) || !errors.Is(err, errdef.ErrInvalid) {
				t.Errorf("%v does not match ErrConvert and ErrInvalid", err)
			}
		})
	}
}

// TestChainOfThree converts from each of three older versions: an object
// goes through every later step, in order, and the current version through
// none.
func TestChainOfThree(t *testing.T) {
	ch := mustNew(t, config(t, "v1",
		[2]string{"v1alpha1", `[{rename: {path: msg, to: message}}]`},
		[2]string{"v1alpha2", `[{move: {from: message, to: greeting.text}}]`},
		[2]string{"v1beta1", `[{default: {path: greeting.style, value: plain}}, {set: {path: greeting.text, expression: "spec.greeting.text.upperAscii()"}}]`},
	))
	if got := strings.Join(ch.Versions(), " "); got != group+"v1alpha1 "+group+"v1alpha2 "+group+"v1beta1 "+group+"v1" {
		t.Fatalf("versions %s", got)
	}
	for _, tt := range []struct{ from, in, want string }{
		{"v1alpha1", `{msg: hi}`, `{"greeting":{"style":"plain","text":"HI"}}`},
		{"v1alpha2", `{message: hi}`, `{"greeting":{"style":"plain","text":"HI"}}`},
		{"v1beta1", `{greeting: {text: hi, style: bold}}`, `{"greeting":{"style":"bold","text":"HI"}}`},
		{"v1", `{greeting: {text: hi}}`, `{"greeting":{"text":"hi"}}`},
	} {
		res, err := ch.Convert(group+tt.from, specOf(t, tt.in), "values.yaml")
		if err != nil {
			t.Fatalf("%s: %v", tt.from, err)
		}
		if got := canonicalJSON(t, res.Spec); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.from, got, tt.want)
		}
		wantSteps := map[string]int{"v1alpha1": 3, "v1alpha2": 2, "v1beta1": 1, "v1": 0}[tt.from]
		if len(res.Steps) != wantSteps || res.APIVersion != group+"v1" {
			t.Errorf("%s: %d steps to %s, want %d", tt.from, len(res.Steps), res.APIVersion, wantSteps)
		}
	}
	res, _ := ch.Convert(group+"v1alpha1", specOf(t, `{msg: hi}`), "v.yaml")
	if res.Summary() != "converted v1alpha1 → v1" || res.Steps[1].From != group+"v1alpha2" || res.Steps[1].Rules[0] != "move message → greeting.text" {
		t.Errorf("report %+v", res)
	}
}

func TestVersionErrors(t *testing.T) {
	ch := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", `[]`}))
	_, err := ch.Convert(group+"v1", specOf(t, `{}`), "values.yaml")
	if want := `values.yaml: conversion failed: apiVersion "greeter.addons.example.com/v1" is newer than the config version of this add-on, "greeter.addons.example.com/v1beta1": it converts only older versions up, never down (use a release of the add-on that reads v1)`; err == nil || err.Error() != want {
		t.Errorf("newer: got %v\nwant %s", err, want)
	}
	_, err = ch.Convert(group+"v1alpha2", specOf(t, `{}`), "values.yaml")
	if want := `values.yaml: conversion failed: apiVersion: got "greeter.addons.example.com/v1alpha2", want one of "greeter.addons.example.com/v1alpha1", "greeter.addons.example.com/v1beta1"`; err == nil || err.Error() != want {
		t.Errorf("unknown: got %v\nwant %s", err, want)
	}
	_, err = ch.Convert("other.example.com/v9", specOf(t, `{}`), "values.yaml")
	if err == nil || !strings.Contains(err.Error(), "want one of") {
		t.Errorf("another group: %v", err)
	}
	for _, tt := range []struct {
		a, b  string
		newer bool
	}{{"g/v1", "g/v1beta2", true}, {"g/v1beta2", "g/v1beta1", true}, {"g/v1beta1", "g/v1alpha3", true}, {"g/v2alpha1", "g/v1", true},
		{"g/v1alpha1", "g/v1", false}, {"g/v1", "g/v1", false}, {"h/v2", "g/v1", false}, {"g/version2", "g/v1", false}} {
		if got := convert.Newer(tt.a, tt.b); got != tt.newer {
			t.Errorf("Newer(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

func TestCompileRefusals(t *testing.T) {
	tests := []struct{ name, rules, want string }{
		{"does not compile", `[{set: {path: a, expression: "spec.a +"}}]`, `spec.config.conversion.versions[0].rules[0].set.expression: conversion failed: CEL expression "spec.a +" does not compile`},
		{"if not a bool", `[{if: "'yes'", delete: {path: a}}]`, `spec.config.conversion.versions[0].rules[0].if: conversion failed: CEL expression "'yes'" is of type string, want bool`},
		{"unknown function (no clock)", `[{set: {path: a, expression: "now()"}}]`, `undeclared reference to 'now'`},
		{"over the cost limit", `[{set: {path: a, expression: "spec.xs.all(x, spec.ys.all(y, spec.zs.all(z, x + y + z != '')))"}}]`,
			`spec.config.conversion.versions[0].rules[0].set.expression: conversion failed: CEL expression "spec.xs.all(x, spec.ys.all(y, spec.zs.all(z, x + y + z != '')))" may cost up to`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := convert.New(config(t, "v1beta1", [2]string{"v1alpha1", tt.rules}))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, convert.ErrConvert) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
	// A linear comprehension over spec is well under the limit.
	if _, err := convert.New(config(t, "v1beta1", [2]string{"v1alpha1", `[{set: {path: a, expression: "spec.xs.map(x, x + '!').sort()"}}]`})); err != nil {
		t.Fatal(err)
	}
}

// TestRuntimeCostLimit: an object large enough makes even an accepted
// expression exceed the limit at run time, which fails cleanly.
func TestRuntimeCostLimit(t *testing.T) {
	ch := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", `[{set: {path: found, expression: "spec.s.contains(spec.t)"}}]`}))
	// contains costs 0.01 × the product of the lengths: 20,000,000 here.
	_, err := ch.Convert(group+"v1alpha1", map[string]any{"s": strings.Repeat("a", 1000000), "t": strings.Repeat("b", 2000)}, "big.yaml")
	if err == nil || !strings.Contains(err.Error(), "big.yaml: conversion failed: cannot convert v1alpha1 → v1beta1: spec.config.conversion.versions[0].rules[0].set: CEL expression") || !strings.Contains(err.Error(), "cost limit exceeded") {
		t.Fatalf("got %v", err)
	}
	if _, err := ch.Convert(group+"v1alpha1", map[string]any{"s": "abc", "t": "b"}, "small.yaml"); err != nil {
		t.Fatal(err)
	}
}

// TestConversionCostBudget: rules each within CostLimit at run time fail
// once their costs together exceed MaxConversionCost, naming the rule.
func TestConversionCostBudget(t *testing.T) {
	// Each contains costs 0.01 × 1,000,000 × 400 = 4,000,000.
	in := map[string]any{"s": strings.Repeat("a", 1000000), "t": strings.Repeat("b", 400)}
	rule := func(i int) string {
		return fmt.Sprintf("{set: {path: found%d, expression: \"spec.s.contains(spec.t)\"}},", i)
	}
	two := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", "[" + rule(0) + rule(1) + "]"}))
	if _, err := two.Convert(group+"v1alpha1", in, "big.yaml"); err != nil {
		t.Fatalf("two rules of 4,000,000: %v", err)
	}
	three := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", "[" + rule(0) + rule(1) + "]"}, [2]string{"v1alpha2", "[" + rule(2) + "]"}))
	_, err := three.Convert(group+"v1alpha1", in, "big.yaml")
	want := `big.yaml: conversion failed: cannot convert v1alpha2 → v1beta1: spec.config.conversion.versions[1].rules[0].set: CEL expression "spec.s.contains(spec.t)": the expressions of the conversion cost 12000`
	limit := fmt.Sprintf(" together, more than the limit of %d", convert.MaxConversionCost)
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), limit) || !errors.Is(err, convert.ErrConvert) {
		t.Fatalf("got %v\nwant %s…%s", err, want, limit)
	}
}

// TestStringGrowthBounded: replace and join give the strings library's
// results, and a chain of rules that squares a string at every step fails
// at MaxStringSize instead of exhausting memory (cel-go charges these calls
// a constant cost, so no cost limit stops it).
func TestStringGrowthBounded(t *testing.T) {
	ch := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", `[
  {set: {path: r, expression: "spec.s.replace('b', 'xy')"}},
  {set: {path: r1, expression: "spec.s.replace('b', 'xy', 1)"}},
  {set: {path: r0, expression: "spec.s.replace('', '-')"}},
  {set: {path: j, expression: "['a', spec.s].join(', ')"}},
  {set: {path: j0, expression: "['a', 'b'].join()"}},
  {set: {path: je, expression: "[].join('-')"}}]`}))
	got, err := ch.Convert(group+"v1alpha1", specOf(t, "{s: abcb}"), "v.yaml")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(got.Spec)
	if want := `{"j":"a, abcb","j0":"ab","je":"","r":"axycxy","r0":"-a-b-c-b-","r1":"axycb","s":"abcb"}`; string(js) != want {
		t.Fatalf("got %s, want %s", js, want)
	}

	square := `{set: {path: s, expression: "spec.s.replace('a', spec.s)"}},`
	ch = mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", "[" + strings.Repeat(square, 4) + "]"}))
	_, err = ch.Convert(group+"v1alpha1", specOf(t, "{s: "+strings.Repeat("a", 52)+"}"), "v.yaml")
	if err == nil || !strings.Contains(err.Error(), "v.yaml: conversion failed: cannot convert v1alpha1 → v1beta1: spec.config.conversion.versions[0].rules[1].set: CEL expression") ||
		!strings.Contains(err.Error(), "replace: the result would be more than 4194304 bytes") {
		t.Fatalf("got %v", err)
	}
	join := `{set: {path: l, expression: "[spec.s, spec.s, spec.s].join(spec.s)"}}`
	ch = mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", "[" + join + "]"}))
	if _, err := ch.Convert(group+"v1alpha1", map[string]any{"s": strings.Repeat("a", 1<<20)}, "v.yaml"); err == nil || !strings.Contains(err.Error(), "join: the result would be more than 4194304 bytes") {
		t.Fatalf("join: got %v", err)
	}
}

func TestNondeterministicRulesRefused(t *testing.T) {
	ch := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", `[{set: {path: args, expression: "spec.extraArgs.map(k, k)"}}]`}))
	in := specOf(t, `{extraArgs: {a: "1", b: "2", c: "3", d: "4", e: "5", f: "6", g: "7", h: "8"}}`)
	_, err := ch.ConvertStable(group+"v1alpha1", in, "tests/args.yaml")
	if err == nil || !strings.Contains(err.Error(), "tests/args.yaml: conversion failed: converting it twice gave different results") || !strings.Contains(err.Error(), "sort a list built from a map") {
		t.Fatalf("got %v", err)
	}
}
