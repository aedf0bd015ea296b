package atomicfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/errdef"
)

// TestWrite: a new file is written whole with mode 0644; without replace
// an existing file is refused and left as it was; with replace it is
// replaced; no temporary file is ever left beside it.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	only := func(want string) {
		t.Helper()
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Fatalf("directory holds %v, want only f.json", entries)
		}
		b, _ := os.ReadFile(path)
		if string(b) != want {
			t.Fatalf("f.json holds %q, want %q", b, want)
		}
	}
	if err := atomicfile.Write(path, []byte("one"), false); err != nil {
		t.Fatal(err)
	}
	only("one")
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if err := atomicfile.Write(path, []byte("two"), false); !errors.Is(err, errdef.ErrExists) {
		t.Fatalf("over an existing file without replace: %v, want ErrExists", err)
	}
	only("one")
	if err := atomicfile.Write(path, []byte("three"), true); err != nil {
		t.Fatal(err)
	}
	only("three")
	if err := atomicfile.Write(filepath.Join(dir, "missing", "f"), []byte("x"), false); err == nil {
		t.Fatal("a file in a missing directory was written")
	}
}
