package deliver_test

import (
	"bytes"
	"testing"

	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/deliver"
)

func TestDiffReport(t *testing.T) {
	a := deliver.Rendering{YAML: []byte("a: 1\nb: 2\n"), Conversion: []convert.Step{{}}}
	b := deliver.Rendering{YAML: []byte("a: 1\nb: 3\n")}
	rep, err := deliver.NewDiffReport(a, b, "r/hello@sha256:aa", "./hello", "r/hello:0.1.0", "./hello")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Differ || rep.A.Source != "r/hello@sha256:aa" || len(rep.A.Conversion) != 1 || rep.B.Source != "./hello" {
		t.Fatalf("report %+v", rep)
	}
	var out, msgs bytes.Buffer
	if err := rep.WriteText(&out, &msgs); err != nil {
		t.Fatal(err)
	}
	want := "--- r/hello:0.1.0\n+++ ./hello\n@@ -1,3 +1,3 @@\n a: 1\n-b: 2\n+b: 3\n \n" // difflib splits after the last newline too
	if out.String() != want || msgs.Len() != 0 {
		t.Fatalf("differing: out %q, msgs %q; want out %q", out.String(), msgs.String(), want)
	}
	same, err := deliver.NewDiffReport(a, a, "x", "y", "x", "y")
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := same.WriteText(&out, &msgs); err != nil || same.Differ || out.Len() != 0 || msgs.String() != "no differences\n" {
		t.Fatalf("same: %v, differ %v, out %q, msgs %q", err, same.Differ, out.String(), msgs.String())
	}
}
