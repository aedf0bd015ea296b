package atomicfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/errdef"
)

// TestWriteFiles: the set is placed whole or not at all; a symlink at a
// name is replaced, never followed; nothing of the staging is left.
func TestWriteFiles(t *testing.T) {
	set := map[string][]byte{"a.yaml": []byte("a: new\n"), "b.yaml": []byte("b: new\n")}
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	entries := func(t *testing.T, dir string) []string {
		t.Helper()
		es, _ := os.ReadDir(dir)
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}

	t.Run("second fails, nothing placed", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "b.yaml", "x"), 0o755) // b.yaml cannot be replaced
		err := atomicfile.WriteFiles(dir, set, true)
		if err == nil {
			t.Fatal("placing over a directory succeeded")
		}
		if _, err := os.Lstat(filepath.Join(dir, "a.yaml")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a.yaml left behind after b.yaml failed: %v", err)
		}
		if got := entries(t, dir); len(got) != 1 || got[0] != "b.yaml" {
			t.Errorf("dir holds %q, want only b.yaml", got)
		}
	})
	t.Run("second fails, the replaced first is put back", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("a: old\n"), 0o644)
		os.MkdirAll(filepath.Join(dir, "b.yaml", "x"), 0o755)
		if err := atomicfile.WriteFiles(dir, set, true); err == nil {
			t.Fatal("placing over a directory succeeded")
		}
		if got := read(filepath.Join(dir, "a.yaml")); got != "a: old\n" {
			t.Errorf("a.yaml = %q, want the old one put back", got)
		}
		if got := entries(t, dir); len(got) != 2 {
			t.Errorf("dir holds %q, want a.yaml and b.yaml", got)
		}
	})
	t.Run("symlink replaced, not followed", func(t *testing.T) {
		dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "victim")
		os.WriteFile(outside, []byte("mine\n"), 0o644)
		if err := os.Symlink(outside, filepath.Join(dir, "a.yaml")); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.WriteFiles(dir, set, false); !errors.Is(err, errdef.ErrExists) {
			t.Fatalf("a symlink without replace: %v, want ErrExists", err)
		}
		if err := atomicfile.WriteFiles(dir, set, true); err != nil {
			t.Fatal(err)
		}
		if got := read(outside); got != "mine\n" {
			t.Errorf("the symlink was followed: its target holds %q", got)
		}
		fi, err := os.Lstat(filepath.Join(dir, "a.yaml"))
		if err != nil || !fi.Mode().IsRegular() || read(filepath.Join(dir, "a.yaml")) != "a: new\n" {
			t.Errorf("a.yaml: %v %v, want the new regular file", fi, err)
		}
		if got := entries(t, dir); len(got) != 2 {
			t.Errorf("dir holds %q, want a.yaml and b.yaml only", got)
		}
	})
	t.Run("exists without replace", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("mine\n"), 0o644)
		if err := atomicfile.WriteFiles(dir, set, false); !errors.Is(err, errdef.ErrExists) {
			t.Fatalf("%v, want ErrExists", err)
		}
		if got := entries(t, dir); len(got) != 1 || read(filepath.Join(dir, "b.yaml")) != "mine\n" {
			t.Errorf("dir holds %q after a refusal", got)
		}
	})
	t.Run("bad name", func(t *testing.T) {
		if err := atomicfile.WriteFiles(t.TempDir(), map[string][]byte{"../x": nil}, true); err == nil {
			t.Error("a name with a separator was written")
		}
	})
}
