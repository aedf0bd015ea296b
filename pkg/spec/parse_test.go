package spec_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/spec"
)

const vectors = "../../specs/testdata/addon"

// TestAddonVectors runs every vector in specs/testdata/addon: valid ones must
// parse, invalid ones must fail with each "# error:" line found in the error.
func TestAddonVectors(t *testing.T) {
	for _, dir := range []string{"valid", "invalid"} {
		files, err := filepath.Glob(filepath.Join(vectors, dir, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no vectors in %s: %v", dir, err)
		}
		for _, f := range files {
			t.Run(dir+"/"+filepath.Base(f), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				a, err := spec.ParseAddon(data, "addon.yaml")
				if dir == "valid" {
					if err != nil {
						t.Fatalf("valid vector refused: %v", err)
					}
					if a.Metadata.Name == "" || a.Spec.Version == "" {
						t.Fatalf("decoded nothing: %+v", a)
					}
					return
				}
				if err == nil {
					t.Fatal("invalid vector accepted")
				}
				if !errors.Is(err, spec.ErrInvalid) {
					t.Errorf("error does not match ErrInvalid: %v", err)
				}
				if !strings.HasPrefix(err.Error(), "addon.yaml") {
					t.Errorf("error does not name the file: %v", err)
				}
				wants := expectedErrors(string(data))
				if len(wants) == 0 {
					t.Fatal("vector has no '# error:' line")
				}
				for _, want := range wants {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error\n%v\ndoes not contain %q", err, want)
					}
				}
			})
		}
	}
}

func expectedErrors(doc string) []string {
	var out []string
	for _, line := range strings.Split(doc, "\n") {
		if rest, ok := strings.CutPrefix(line, "# error: "); ok {
			out = append(out, rest)
		}
	}
	return out
}

func TestParseAddonFull(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(vectors, "valid", "full.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := spec.ParseAddon(data, "addon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := a.ConfigType(); got != "coredns.addons.example.com/v1alpha1/CoreDNSConfig" {
		t.Errorf("ConfigType() = %q", got)
	}
	if a.KustomizeRoot() != "deploy" || len(a.Spec.Config.Components) != 1 || a.Spec.Dependencies[0].Version != ">=1.14.0, <2.0.0" {
		t.Errorf("decoded %+v", a.Spec)
	}
	minimal := &spec.Addon{}
	if minimal.KustomizeRoot() != "." || minimal.ConfigType() != "" {
		t.Errorf("defaults: %q %q", minimal.KustomizeRoot(), minimal.ConfigType())
	}
}

func TestParseAddonOversize(t *testing.T) {
	data := make([]byte, spec.MaxDocumentSize+1)
	_, err := spec.ParseAddon(data, "addon.yaml")
	if err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Fatalf("oversize document: %v", err)
	}
}

func FuzzParseAddon(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(vectors, dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := spec.ParseAddon(data, "addon.yaml")
		if err == nil && (a.Metadata.Name == "" || a.Spec.Version == "") {
			t.Fatalf("accepted without name or version: %q", data)
		}
		if err != nil && !errors.Is(err, spec.ErrInvalid) {
			t.Fatalf("error does not match ErrInvalid: %v", err)
		}
	})
}
