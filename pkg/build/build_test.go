package build_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/vcs"
)

var update = flag.Bool("update", false, "rewrite the golden files in specs/examples")

const (
	helloExample = "../../examples/hello"
	goldenDir    = "../../specs/examples/hello"
)

// copyTree copies src into a new directory under t.TempDir(), files in
// reverse order, with the given file mode and mtime, so that only content can
// make the digests equal.
func copyTree(t *testing.T, src string, mode os.FileMode, mtime time.Time) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "elsewhere", "copy")
	var files []string
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(files) - 1; i >= 0; i-- {
		rel, _ := filepath.Rel(src, files[i])
		data, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(target, mode); err != nil { // umask does not apply
			t.Fatal(err)
		}
		if err := os.Chtimes(target, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func buildManifest(t *testing.T, dir string, opts build.Options) (*build.Result, []byte, *memory.Store) {
	t.Helper()
	store := memory.New()
	res, err := build.Build(context.Background(), dir, store, opts)
	if err != nil {
		t.Fatalf("Build(%s): %v", dir, err)
	}
	raw, err := content.FetchAll(context.Background(), store, res.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	return res, raw, store
}

func TestReproducible(t *testing.T) {
	_, want, _ := buildManifest(t, helloExample, build.Options{})
	for _, tc := range []struct {
		name  string
		mode  os.FileMode
		mtime time.Time
	}{
		{"private files, old mtime", 0o600, time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)},
		{"group-writable files, now", 0o664, time.Now()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, helloExample, tc.mode, tc.mtime)
			_, got, _ := buildManifest(t, dir, build.Options{})
			if string(got) != string(want) {
				t.Fatalf("manifest differs for a copy at %s:\n%s\nwant\n%s", dir, got, want)
			}
		})
	}
	t.Run("exec bit matters", func(t *testing.T) {
		dir := copyTree(t, helloExample, 0o755, time.Now())
		_, got, _ := buildManifest(t, dir, build.Options{})
		if string(got) == string(want) {
			t.Fatal("making every file executable did not change the digest: modes are not packed")
		}
	})
}

// TestGolden pins the exact manifest and config of examples/hello, so that a
// change of compressor, tar layout or JSON encoding cannot change digests
// unnoticed. Refresh with: go test ./pkg/build -run TestGolden -update
func TestGolden(t *testing.T) {
	res, manifest, store := buildManifest(t, helloExample, build.Options{})
	a, err := spec.ParseManifest(manifest, "golden")
	if err != nil {
		t.Fatal(err)
	}
	configJSON, err := content.FetchAll(context.Background(), store, a.Config)
	if err != nil {
		t.Fatal(err)
	}
	golden := map[string][]byte{
		"manifest.json": manifest,
		"config.json":   configJSON,
		"digest":        []byte(res.Manifest.Digest.String() + "\n"),
	}
	for name, got := range golden {
		path := filepath.Join(goldenDir, name)
		if *update {
			if err := os.MkdirAll(goldenDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s changed:\n%s\nwant\n%s\nIf the change is intended, run go test ./pkg/build -run TestGolden -update and explain it in the commit.", path, got, want)
		}
	}
}

type fakeVCS struct{ info vcs.Info }

func (f fakeVCS) Describe(context.Context, string) (vcs.Info, error) { return f.info, nil }

func TestAnnotations(t *testing.T) {
	commit := strings.Repeat("ab", 20)
	when := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	res, _, _ := buildManifest(t, helloExample, build.Options{VCS: fakeVCS{vcs.Info{Commit: commit, Time: when}}})
	if got := res.Annotations[spec.AnnotationCreated]; got != "2024-01-02T03:04:05Z" {
		t.Errorf("created from git = %q", got)
	}
	if got := res.Annotations[spec.AnnotationRevision]; got != commit {
		t.Errorf("revision from git = %q", got)
	}
	res, _, _ = buildManifest(t, helloExample, build.Options{VCS: fakeVCS{vcs.Info{Commit: commit, Time: when, Dirty: true}}})
	if _, ok := res.Annotations[spec.AnnotationRevision]; ok || res.Annotations[spec.AnnotationCreated] != "2024-01-02T03:04:05Z" {
		t.Errorf("a dirty tree claims a revision or lost its time: %v", res.Annotations)
	}
	epoch := time.Unix(1700000000, 0)
	res, _, _ = buildManifest(t, helloExample, build.Options{Created: &epoch, Revision: "v1", VCS: fakeVCS{vcs.Info{Commit: commit, Time: when}}})
	if res.Annotations[spec.AnnotationCreated] != "2023-11-14T22:13:20Z" || res.Annotations[spec.AnnotationRevision] != "v1" {
		t.Errorf("overrides ignored: %v", res.Annotations)
	}
	res, _, _ = buildManifest(t, helloExample, build.Options{})
	if res.Annotations[spec.AnnotationCreated] != "1970-01-01T00:00:00Z" {
		t.Errorf("created without git = %q", res.Annotations[spec.AnnotationCreated])
	}
	for _, k := range []string{spec.AnnotationTitle, spec.AnnotationVersion, spec.AnnotationDescription, spec.AnnotationLicenses, spec.AnnotationConfigType} {
		if res.Annotations[k] == "" {
			t.Errorf("annotation %s missing: %v", k, res.Annotations)
		}
	}
	if len(res.Addon.Spec.Images) != 1 || !strings.HasPrefix(res.Addon.Spec.Images[0], "docker.io/hashicorp/http-echo") {
		t.Errorf("images not derived from the rendered output: %v", res.Addon.Spec.Images)
	}
}
