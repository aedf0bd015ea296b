package tufroot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// TestUseInitialRoot: --tuf-root is read into the options; another
// repository than the public-good one without it is a usage error.
func TestUseInitialRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root.json")
	if err := os.WriteFile(root, []byte(`{"signed":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{URL: "http://localhost:8088"}
	if err := o.UseInitialRoot(root); err != nil || string(o.InitialRoot) != `{"signed":{}}` {
		t.Fatalf("%v %q", err, o.InitialRoot)
	}
	o = Options{URL: "http://localhost:8088"}
	if err := o.UseInitialRoot(""); !errors.Is(err, errdef.ErrUsage) || !strings.Contains(err.Error(), "--tuf-url http://localhost:8088 needs --tuf-root") {
		t.Fatalf("another repository without a root: %v", err)
	}
	o = Options{URL: DefaultURL + "/"}
	if err := o.UseInitialRoot(""); err != nil || o.InitialRoot != nil {
		t.Fatalf("the public-good repository: %v", err)
	}
	if err := (&Options{}).UseInitialRoot(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.HasPrefix(err.Error(), "--tuf-root: ") {
		t.Fatalf("a missing root: %v", err)
	}
}
