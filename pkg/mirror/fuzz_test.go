package mirror_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/pkg/mirror"
)

// FuzzParse holds the mirror file reader to no panics, to refusals that are
// all ErrFile, and to files that satisfy its rules whenever it accepts one.
// Seeded with every vector of specs/testdata/mirror.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "specs", "testdata", "mirror", "*", "*.yaml"))
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := mirror.Parse(data, "mirror.yaml")
		if err != nil {
			if !errors.Is(err, mirror.ErrFile) {
				t.Fatalf("refused outside ErrFile: %v", err)
			}
			return
		}
		if len(m.Sources) == 0 || len(m.Sources) > 256 || (m.Destination.Registry == nil) == (m.Destination.Tarball == "") {
			t.Fatalf("accepted %+v", m)
		}
		if (m.Policy.File == "") == (len(m.Policy.Keys) == 0) {
			t.Fatalf("accepted policy %+v", m.Policy)
		}
		seen := map[string]bool{}
		for _, s := range m.Sources {
			if s.Repository.Tag != "" || s.Repository.Digest != "" || s.Repository.Repository == "" || seen[s.Repository.Repo()] {
				t.Fatalf("accepted source %+v", s)
			}
			if s.Limit < 0 || s.Limit > 1000 || s.Images && m.Destination.Tarball != "" {
				t.Fatalf("accepted source %+v", s)
			}
			seen[s.Repository.Repo()] = true
		}
	})
}

// FuzzParseIndex holds the tarball index reader to no panics and to
// indexes whose every release names a repository, a digest and a layout tag.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"addonpack.dev/v1alpha1","kind":"MirrorIndex","releases":[{"repository":"localhost:5000/addons/hello","tag":"0.1.0","digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000","name":"","layoutTag":"hello-0.1.0"}]}`))
	f.Add([]byte(`{"apiVersion":"addonpack.dev/v1alpha1","kind":"MirrorIndex","releases":[]}`))
	f.Add([]byte(`{"kind":"MirrorIndex","extra":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := mirror.ParseIndex(data, "mirror.tar")
		if err != nil {
			if !errors.Is(err, mirror.ErrFile) {
				t.Fatalf("refused outside ErrFile: %v", err)
			}
			return
		}
		for _, r := range idx.Releases {
			if r.Repository == "" || r.Digest.Validate() != nil || r.LayoutTag == "" || r.Tag == "" {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}
