package convert

import (
	"encoding/json"
	"testing"

	"github.com/addonpack/addonpack/pkg/schema"
)

// nodes counts the objects, arrays and scalars of v.
func nodes(v any) int64 {
	n := int64(1)
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			n += nodes(e)
		}
	case []any:
		for _, e := range v {
			n += nodes(e)
		}
	}
	return n
}

// FuzzMeasure: the three walks that measure values (measure, toCEL,
// fromCEL) count the bytes encoding/json writes and the nodes of the value.
func FuzzMeasure(f *testing.F) {
	for _, seed := range []string{
		`{a: 1, b: [true, null, "x"], c: {d: 1.5e300}}`,
		`{"<&>": "\u2028\u2029\u0000\u001f\t\n\"\\", "é": "日本"}`,
		`[[], {}, "", 0, -1, 18446744073709551615, 1e-7]`,
		"\"\xff\xfe invalid\"", `"\b\f"`, `null`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, _ := json.Marshal(string(data))
		if got := jsonStringLen(string(data)); got != int64(len(want)) {
			t.Fatalf("jsonStringLen(%q) = %d, json.Marshal writes %d bytes", data, got, len(want))
		}
		v, err := schema.Decode(data, "values.yaml")
		if err != nil {
			return
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		m := newMeter("the value", &budget{})
		if err := measure(v, m, 0); err != nil {
			return
		}
		if m.bytes != int64(len(js)) || m.nodes != nodes(v) {
			t.Fatalf("measured %d bytes, %d nodes; %s is %d bytes, %d nodes", m.bytes, m.nodes, js, len(js), nodes(v))
		}
		in := newMeter("the spec", &budget{})
		c, err := toCEL(v, in, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := newMeter("the result", &budget{})
		back, err := fromCEL(c, out, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Integers past int64 come back as doubles (section 9.4), so the
		// result is measured against what came back.
		again, _ := json.Marshal(back)
		if in.bytes != m.bytes || in.nodes != m.nodes || out.bytes != int64(len(again)) || out.nodes != nodes(back) {
			t.Fatalf("%s came back as %s; measured %d/%d/%d bytes, %d/%d/%d nodes", js, again, m.bytes, in.bytes, out.bytes, m.nodes, in.nodes, out.nodes)
		}
	})
}
