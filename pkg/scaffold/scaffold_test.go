package scaffold_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/scaffold"
	"github.com/addonpack/addonpack/pkg/spec"
)

func TestCreateBuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-dns")
	files, err := scaffold.Create(dir, scaffold.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("wrote %v", files)
	}
	res, err := build.Build(context.Background(), dir, memory.New(), build.Options{})
	if err != nil {
		t.Fatalf("a fresh scaffold does not build: %v", err)
	}
	if res.Addon.Metadata.Name != "my-dns" || res.Addon.Spec.Config.Kind != "MyDnsConfig" {
		t.Fatalf("name and kind from the directory: %+v", res.Addon)
	}
}

func TestCreateRefusals(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
	if _, err := scaffold.Create(dir, scaffold.Options{Name: "ok"}); !errors.Is(err, scaffold.ErrExists) {
		t.Fatalf("non-empty dir: %v", err)
	}
	if _, err := scaffold.Create(filepath.Join(t.TempDir(), "Bad_Name"), scaffold.Options{}); err == nil || !strings.Contains(err.Error(), "bad_name") || !errors.Is(err, spec.ErrInvalid) {
		t.Fatalf("bad name: %v", err)
	}
	if _, err := scaffold.Create(filepath.Join(t.TempDir(), "x"), scaffold.Options{Name: "9lives"}); err != nil {
		t.Fatalf("a name starting with a digit is a valid label: %v", err)
	}
}
