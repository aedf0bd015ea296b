package stack

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/specs"
)

// TestVectors runs the stack and lock test vectors of specs/testdata: every
// valid one is accepted by the reader and by the published schema; every
// invalid one is refused by the reader with each "# error:" line in the
// message, and an invalid stack file by the schema too (a lock's validity
// is more than its structure: specs/stack.md section 4.5).
func TestVectors(t *testing.T) {
	for _, tt := range []struct {
		dir, schemaPath string
		read            func([]byte, string) error
	}{
		{"stack", "schemas/stack.schema.json", func(b []byte, p string) error { _, err := Parse(b, p); return err }},
		{"stack-lock", "schemas/stack-lock.schema.json", func(b []byte, p string) error { _, err := parseLock(b, p); return err }},
	} {
		sch, err := schema.CompileEmbedded(specs.Schemas, tt.schemaPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"valid", "invalid"} {
			files, _ := filepath.Glob(filepath.Join("..", "..", "specs", "testdata", tt.dir, kind, "*"))
			if len(files) == 0 {
				t.Fatalf("no %s/%s vectors", tt.dir, kind)
			}
			for _, f := range files {
				t.Run(tt.dir+"/"+kind+"/"+filepath.Base(f), func(t *testing.T) {
					b, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					doc, derr := schema.Decode(b, f)
					if derr != nil {
						t.Fatal(derr)
					}
					serr := sch.Validate(doc)
					err = tt.read(b, f)
					if kind == "valid" {
						if err != nil || serr != nil {
							t.Fatalf("reader: %v; schema: %v", err, serr)
						}
						return
					}
					if err == nil {
						t.Fatal("accepted")
					}
					for _, line := range bytes.Split(b, []byte("\n")) {
						if want, ok := strings.CutPrefix(string(line), "# error: "); ok && !strings.Contains(err.Error(), want) {
							t.Errorf("error %q does not contain %q", err, want)
						}
					}
					if tt.dir == "stack" && serr == nil {
						t.Error("the schema accepts an invalid stack file")
					}
				})
			}
		}
	}
}
