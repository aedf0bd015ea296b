package convert_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/schema"
)

// FuzzConvert converts arbitrary objects through a chain using every rule
// kind, or (v ≥ 128) through a chain of rules that grow values without cost
// (doubling maps, lists and strings, rule after rule and inside one rule):
// no panic, only ErrConvert errors, and the same output every time.
func FuzzConvert(f *testing.F) {
	for _, seed := range []string{
		`{message: hi, replicas: 2}`,
		`{message: {nested: true}, greeting: 1}`,
		`{extraArgs: {v: "2", bind: 0.0.0.0}, legacy: {mode: x}}`,
		`{extraArgs: [1, 2], shout: true}`,
		`{server: {listen: 80}, msg: null}`,
		`{a: 1.5, b: [null, {c: d}], extraArgs: {}}`,
		`[]`, `null`, `"x"`,
	} {
		f.Add([]byte(seed), uint8(0))
	}
	for _, seed := range []string{
		`{m: {x: 1}, l: [1], s: ab}`,
		`{m: [1, 2, 3], l: [[1], {a: b}], s: ""}`,
		`{m: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", l: [1, 2, 3, 4, 5, 6, 7, 8], s: "<&>"}`,
		`{l: [1, 2], s: {}}`, `{}`,
	} {
		f.Add([]byte(seed), uint8(128))
	}
	ch := mustNew(f, config(f, "v1",
		[2]string{"v1alpha1", `[{rename: {path: msg, to: message}}, {delete: {path: legacy.mode}}, {if: "has(spec.shout) && spec.shout == true", fail: {message: "shout was removed"}}]`},
		[2]string{"v1alpha2", `[{move: {from: message, to: greeting.text}}, {default: {path: greeting.style, value: plain}}]`},
		[2]string{"v1beta1", `[{if: "has(spec.extraArgs) && type(spec.extraArgs) == map", set: {path: extraArgs, expression: "spec.extraArgs.map(k, {'name': k, 'value': spec.extraArgs[k]}).sortBy(e, e.name)"}}, {rename: {path: server.listen, to: port}}]`},
	))
	hostile := hostileChain(f)
	versions := ch.Versions()
	f.Fuzz(func(t *testing.T, data []byte, v uint8) {
		in, err := schema.Decode(data, "values.yaml")
		if err != nil {
			return
		}
		ch := ch
		if v >= 128 {
			ch = hostile
		}
		from := versions[int(v)%len(versions)]
		first, err := ch.Convert(from, in, "values.yaml")
		if err != nil {
			if !errors.Is(err, convert.ErrConvert) {
				t.Fatalf("error does not match ErrConvert: %v", err)
			}
			return
		}
		want, err := json.Marshal(first.Spec)
		if err != nil {
			t.Fatalf("converted to something that is not JSON: %v", err)
		}
		for range 3 {
			again, err := ch.Convert(from, in, "values.yaml")
			if err != nil {
				t.Fatalf("second conversion failed: %v", err)
			}
			if got, _ := json.Marshal(again.Spec); string(got) != string(want) {
				t.Fatalf("nondeterministic: %s then %s", want, got)
			}
		}
	})
}

// hostileChain is a chain of rules that grow values without cost, built
// without the growth estimate, as a package built before it would be.
func hostileChain(tb testing.TB) *convert.Chain {
	grow := func(n int, path, expr string) string {
		return strings.Repeat(fmt.Sprintf("{if: %q, set: {path: %s, expression: %q}},", "has(spec."+path+")", path, expr), n)
	}
	hostile, err := convert.NewUnestimated(config(tb, "v1",
		[2]string{"v1alpha1", "[" + grow(12, "m", "{'a': spec.m, 'b': spec.m}") + "]"},
		[2]string{"v1alpha2", "[" + grow(12, "l", "type(spec.l) == list ? spec.l + spec.l : spec.l") + grow(1, "l", "type(spec.l) == list ? spec.l.map(x, [spec.l, spec.l]) : spec.l") + "]"},
		[2]string{"v1beta1", "[" + grow(12, "s", "type(spec.s) == string ? spec.s + spec.s : spec.s") + grow(1, "s", "type(spec.s) == string ? spec.s + spec.s + spec.s + spec.s : spec.s") + "]"},
	))
	if err != nil {
		tb.Fatal(err)
	}
	return hostile
}
