package upgrade

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCompare: compare never panics, is deterministic, and finds no change
// between a schema and itself.
func FuzzCompare(f *testing.F) {
	for _, s := range [][2]string{
		{`{"type":"object","properties":{"a":{"type":"string","enum":["x","y"],"maxLength":3}}}`, `{"type":"object","properties":{"a":{"type":"string","enum":["x"],"pattern":"^x$"}}}`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"exclusiveMaximum":10,"multipleOf":2}}}`, `{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":1,"maximum":5,"multipleOf":3}}}`},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}}}}}`, `{"type":"object","properties":{"l":{"type":"array","minItems":1,"items":{"type":"object","required":["k"]}}}}`},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, `{"type":"object","additionalProperties":false,"nullable":true,"format":"hostname"}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, prev, next []byte) {
		if len(prev) > 1<<14 || len(next) > 1<<14 {
			return
		}
		a, err := compare(prev, next)
		if err != nil {
			return
		}
		b, _ := compare(prev, next)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("two runs differ:\n%s\n%s", ja, jb)
		}
		if same, err := compare(prev, prev); err == nil && len(same) != 0 {
			t.Fatalf("a schema differs from itself: %+v\n%s", same, prev)
		}
	})
}
