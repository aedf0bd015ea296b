package gen

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func treeHash(t *testing.T, dir string) ([32]byte, int, int64) {
	h := sha256.New()
	n, size := 0, int64(0)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel))
		h.Write(b)
		n++
		size += int64(len(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, n, size
}

// TestDeterministic checks that a shape always writes the same tree with the
// requested number of files (sizes are approximate; no timing here).
func TestDeterministic(t *testing.T) {
	s := Small("small", 1)
	a, b := t.TempDir(), t.TempDir()
	if _, err := Write(a, s); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(b, s); err != nil {
		t.Fatal(err)
	}
	ha, n, size := treeHash(t, a)
	hb, _, _ := treeHash(t, b)
	if ha != hb {
		t.Fatal("two runs wrote different trees")
	}
	if n != s.Files {
		t.Fatalf("%d files, want %d", n, s.Files)
	}
	if size < s.Bytes*9/10 || size > s.Bytes*11/10 {
		t.Fatalf("%d bytes, want about %d", size, s.Bytes)
	}
}
