package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/pkg/archive"
)

// TestPackedTreeHoldsFilesToThePackedContent: the checks after packing read
// files from disk, and a file edited since it was packed (same size, other
// content) fails with ErrFileChanged instead of being checked in a form the
// layer does not hold.
func TestPackedTreeHoldsFilesToThePackedContent(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("addon.yaml", "apiVersion: addonpack.dev/v1alpha1\nkind: Addon\nmetadata:\n  name: x\nspec:\n  version: 0.1.0\n  description: x\n")
	write("kustomization.yaml", "resources: [cm.yaml]\n")
	write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	src, err := loadSource(dir, archive.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	pk, err := src.pack(context.Background(), t.TempDir(), archive.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer pk.remove()
	tree := newPackedTree(src, pk)
	if _, err := tree.ReadFile("cm.yaml"); err != nil {
		t.Fatalf("unchanged file: %v", err)
	}
	write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
	if _, err := tree.ReadFile("cm.yaml"); !errors.Is(err, archive.ErrFileChanged) {
		t.Fatalf("edited file: got %v, want ErrFileChanged", err)
	}
	if _, err := tree.Open("missing.yaml"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: got %v", err)
	}
}
