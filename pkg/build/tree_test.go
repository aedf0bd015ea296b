package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/render"
)

// TestPackedTreeHoldsFilesToThePackedContent: the checks after packing read
// files from disk, and a file edited since it was packed (same size, other
// content) fails with ErrFileChanged instead of being checked in a form the
// layer does not hold.
func TestPackedTreeHoldsFilesToThePackedContent(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
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

// TestAddonYAMLChangedWhilePacking: addon.yaml is parsed before the tree is
// scanned and packed; if the packed copy is another, the build stops rather
// than check one addon.yaml and publish another.
func TestAddonYAMLChangedWhilePacking(t *testing.T) {
	dir := t.TempDir()
	write := writer(t, dir)
	addon := "apiVersion: addonpack.dev/v1alpha1\nkind: Addon\nmetadata:\n  name: x\nspec:\n  version: 0.1.0\n  description: %s\n"
	write("addon.yaml", fmt.Sprintf(addon, "a"))
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
	if err := src.checkPacked(pk); err != nil {
		t.Fatalf("unchanged addon.yaml: %v", err)
	}
	pk.remove()
	write("addon.yaml", fmt.Sprintf(addon, "b")) // same size, other content
	pk, err = src.pack(context.Background(), t.TempDir(), archive.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer pk.remove()
	if err := src.checkPacked(pk); !errors.Is(err, archive.ErrFileChanged) {
		t.Fatalf("addon.yaml changed after parsing: got %v, want ErrFileChanged", err)
	}
}

// TestMemoKeyCoversTheRender: the memo key changes with anything the render
// check rendered, even where the tree (layer digest) is the same.
func TestMemoKeyCoversTheRender(t *testing.T) {
	o := Options{Renderer: "r"}
	base := render.Input{Root: ".", Config: []byte("a"), Components: []string{"c1"}}
	keys := map[string]string{"base": o.memoKey("sha256:1", []byte("A"), base)}
	vary := map[string]func() (Options, string, render.Input){
		"layer":      func() (Options, string, render.Input) { return o, "sha256:2", base },
		"renderer":   func() (Options, string, render.Input) { return Options{Renderer: "s"}, "sha256:1", base },
		"root":       func() (Options, string, render.Input) { in := base; in.Root = "deploy"; return o, "sha256:1", in },
		"config":     func() (Options, string, render.Input) { in := base; in.Config = []byte("b"); return o, "sha256:1", in },
		"components": func() (Options, string, render.Input) { in := base; in.Components = nil; return o, "sha256:1", in },
		"split": func() (Options, string, render.Input) {
			in := base
			in.Components = []string{"c", "1"}
			return o, "sha256:1", in
		},
	}
	keys["addon.yaml"] = o.memoKey("sha256:1", []byte("B"), base)
	if keys["addon.yaml"] == keys["base"] {
		t.Error("addon.yaml gives the same key as base")
	}
	for name, f := range vary {
		opts, layer, in := f()
		k := opts.memoKey(layer, []byte("A"), in)
		for other, ok := range keys {
			if ok == k {
				t.Errorf("%s gives the same key as %s", name, other)
			}
		}
		keys[name] = k
	}
}

// writer returns a function that writes a file under dir, creating parents.
func writer(t *testing.T, dir string) func(rel, content string) {
	return func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
