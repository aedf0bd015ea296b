package convert_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/schema"
)

// FuzzConvert converts arbitrary objects through a chain using every rule
// kind: no panic, only ErrConvert errors, and the same output every time.
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
	ch := mustNew(f, config(f, "v1",
		[2]string{"v1alpha1", `[{rename: {path: msg, to: message}}, {delete: {path: legacy.mode}}, {if: "has(spec.shout) && spec.shout == true", fail: {message: "shout was removed"}}]`},
		[2]string{"v1alpha2", `[{move: {from: message, to: greeting.text}}, {default: {path: greeting.style, value: plain}}]`},
		[2]string{"v1beta1", `[{if: "has(spec.extraArgs) && type(spec.extraArgs) == map", set: {path: extraArgs, expression: "spec.extraArgs.map(k, {'name': k, 'value': spec.extraArgs[k]}).sortBy(e, e.name)"}}, {rename: {path: server.listen, to: port}}]`},
	))
	versions := ch.Versions()
	f.Fuzz(func(t *testing.T, data []byte, v uint8) {
		in, err := schema.Decode(data, "values.yaml")
		if err != nil {
			return
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
