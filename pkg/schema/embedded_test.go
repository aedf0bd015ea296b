package schema

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/addonpack/addonpack/specs"
)

// TestCompileEmbedded: every schema addonpack publishes compiles on its own;
// one that reaches for another document is refused, not fetched.
func TestCompileEmbedded(t *testing.T) {
	names, err := fs.Glob(specs.Schemas, "schemas/*.json")
	if err != nil || len(names) < 2 {
		t.Fatalf("embedded schemas: %v %v", names, err)
	}
	for _, name := range names {
		if _, err := CompileEmbedded(specs.Schemas, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	fsys := fstest.MapFS{"s/x.schema.json": {Data: []byte(`{"$ref": "https://example.com/other.json"}`)}}
	if _, err := CompileEmbedded(fsys, "s/x.schema.json"); !errors.Is(err, ErrExternalRef) {
		t.Errorf("external $ref: got %v, want ErrExternalRef", err)
	}
	if _, err := CompileEmbedded(fsys, "s/missing.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: got %v, want fs.ErrNotExist", err)
	}
}
