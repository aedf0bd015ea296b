package push_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/push"
	"github.com/addonpack/addonpack/pkg/registry"
)

// TestItemsUnder: push --prefix names each directory's push
// PREFIX/NAME:VERSION from its addon.yaml, '+' written '_'; a directory
// without an addon.yaml fails naming the file.
func TestItemsUnder(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	if err := os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "examples", "hello"))); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src, "addon.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "addon.yaml"), []byte(strings.Replace(string(b), "version: 0.1.0", "version: 0.1.0+aws", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	items, err := push.ItemsUnder("localhost:5000/addons/", []string{src}, registry.ParseReference)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Src != src || items[0].Ref.String() != "localhost:5000/addons/hello:0.1.0_aws" {
		t.Fatalf("items %+v", items)
	}
	if _, err := push.ItemsUnder("localhost:5000/addons", []string{dir}, registry.ParseReference); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "addon.yaml")) {
		t.Fatalf("a directory without addon.yaml: %v", err)
	}
}
