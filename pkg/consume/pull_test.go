package consume_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/testregistry"
)

const helloExample = "../../examples/hello"

// publish builds examples/hello and pushes it to host as addons/hello:0.1.0.
func publish(t *testing.T, host string) (registry.Reference, *build.Result, *registry.Client) {
	t.Helper()
	ctx := context.Background()
	store := memory.New()
	res, err := build.Build(ctx, helloExample, store, build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := registry.ParseReference(host + "/addons/hello:0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
		t.Fatal(err)
	}
	return ref, res, c
}

// assertSameTree compares two trees byte for byte, with normalised modes.
// The source's expected/ directory is left out of the package by its
// .addonpackignore.
func assertSameTree(t *testing.T, want, got string) {
	t.Helper()
	seen := 0
	err := filepath.WalkDir(want, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		if d.IsDir() {
			if rel == "expected" {
				return filepath.SkipDir
			}
			return nil
		}
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil {
			t.Errorf("%s missing from the pulled tree: %v", rel, err)
			return nil
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs", rel)
		}
		fi, _ := os.Stat(filepath.Join(got, rel))
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", rel, fi.Mode().Perm())
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	filepath.WalkDir(got, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if n != seen || seen == 0 {
		t.Errorf("pulled tree has %d files, source %d", n, seen)
	}
}

// assertOnly checks that parent holds exactly the named entries: no staging
// directory or spool file was left behind.
func assertOnly(t *testing.T, parent string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("%s holds %v, want exactly %v", parent, got, names)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		host func(t *testing.T) string
	}{
		{"testregistry", func(t *testing.T) string { return testregistry.New(t).Host() }},
		{"distribution", func(t *testing.T) string { return realregistry.Start(t, realregistry.Options{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, built, c := publish(t, tc.host(t))
			parent := t.TempDir()
			out := filepath.Join(parent, "hello")
			res, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, out, consume.PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Descriptor.Digest != built.Manifest.Digest {
				t.Fatalf("pulled %s, pushed %s", res.Descriptor.Digest, built.Manifest.Digest)
			}
			if res.Addon.Metadata.Name != "hello" || res.Stats.Files == 0 {
				t.Fatalf("result %+v", res)
			}
			assertSameTree(t, helloExample, out)
			assertOnly(t, parent, "hello")

			// Ten pulls give the same result (with --force, since the target exists).
			for i := 0; i < 3; i++ {
				if _, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, out, consume.PullOptions{Force: true}); err != nil {
					t.Fatal(err)
				}
			}
			assertSameTree(t, helloExample, out)
			assertOnly(t, parent, "hello")
		})
	}
}

func TestTargetNotEmpty(t *testing.T) {
	ref, _, c := publish(t, testregistry.New(t).Host())
	parent := t.TempDir()
	out := filepath.Join(parent, "hello")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "mine.txt"), []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, out, consume.PullOptions{})
	if !errors.Is(err, atomicfile.ErrNotEmpty) || !strings.Contains(err.Error(), out) {
		t.Fatalf("got %v, want ErrTargetNotEmpty naming %s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(out, "mine.txt")); string(data) != "keep me" {
		t.Fatal("target changed")
	}
	assertOnly(t, parent, "hello")
}

// TestFailuresLeaveNothing drives failures at each stage and checks that the
// target is untouched and no staging directory is left.
func TestFailuresLeaveNothing(t *testing.T) {
	ctx := context.Background()
	t.Run("registry serves wrong bytes for the content layer", func(t *testing.T) {
		st := testregistry.NewMemoryStorage()
		reg := testregistry.New(t, testregistry.WithStorage(st))
		ref, built, c := publish(t, reg.Host())
		reg2 := testregistry.New(t, testregistry.WithStorage(st), testregistry.WithFaults(testregistry.Faults{Rules: []testregistry.FaultRule{
			{Match: testregistry.MatchPath(built.Layers[0].Digest.String()), Kind: testregistry.WrongBytes},
		}}))
		ref.Registry = reg2.Host()
		parent := t.TempDir()
		_, err := consume.Pull(ctx, artifact.Remote{Client: c, Ref: ref}, filepath.Join(parent, "out"), consume.PullOptions{})
		if !errors.Is(err, errdef.ErrDigestMismatch) || !strings.Contains(err.Error(), built.Layers[0].Digest.String()) {
			t.Fatalf("got %v, want ErrDigestMismatch naming the layer digest", err)
		}
		assertOnly(t, parent)
	})
	t.Run("interrupted midway", func(t *testing.T) {
		st := testregistry.NewMemoryStorage()
		reg := testregistry.New(t, testregistry.WithStorage(st))
		ref, built, c := publish(t, reg.Host())
		reg2 := testregistry.New(t, testregistry.WithStorage(st), testregistry.WithFaults(testregistry.Faults{Rules: []testregistry.FaultRule{
			{Match: testregistry.MatchPath(built.Layers[0].Digest.String()), Kind: testregistry.Stall},
		}}))
		ref.Registry = reg2.Host()
		parent := t.TempDir()
		ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		_, err := consume.Pull(ctx, artifact.Remote{Client: c, Ref: ref}, filepath.Join(parent, "out"), consume.PullOptions{})
		if err == nil {
			t.Fatal("pull survived its deadline")
		}
		assertOnly(t, parent)
	})
}

// pushRaw pushes a hand-made artifact whose content layer is layer.
func pushRaw(t *testing.T, host string, layer []byte, mutate func(*ocispec.Manifest)) (registry.Reference, *registry.Client) {
	t.Helper()
	ctx := context.Background()
	store := memory.New()
	addonJSON := []byte(`{"addon":{"apiVersion":"addonpack.dev/v1alpha1","kind":"Addon","metadata":{"name":"evil"},"spec":{"version":"1.0.0","description":"x"}}}`)
	put := func(mt string, data []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
		if err := store.Push(ctx, d, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := spec.NewManifest(put(spec.ConfigMediaType, addonJSON), put(spec.ContentMediaType, layer), nil)
	if mutate != nil {
		mutate(&m)
	}
	raw, _ := json.Marshal(m)
	root := put(spec.ManifestMediaType, raw)
	c, _ := registry.New(registry.Options{})
	ref, _ := registry.ParseReference(host + "/addons/evil:1.0.0")
	if _, err := c.Push(ctx, store, root, ref); err != nil {
		t.Fatal(err)
	}
	return ref, c
}

func tarGz(t *testing.T, entries ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range entries {
		body := "apiVersion: addonpack.dev/v1alpha1\nkind: Addon\nmetadata: {name: evil}\nspec: {version: 1.0.0, description: x}\n"
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(body))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestHostileArtifacts(t *testing.T) {
	reg := testregistry.New(t)
	tests := []struct {
		name   string
		layer  []byte
		mutate func(*ocispec.Manifest)
		is     error
		want   string
	}{
		{"path traversal", tarGz(t, &tar.Header{Name: "addon.yaml", Typeflag: tar.TypeReg, Mode: 0o644}, &tar.Header{Name: "../escaped.yaml", Typeflag: tar.TypeReg, Mode: 0o644}),
			nil, archive.ErrUnsafePath, "../escaped.yaml"},
		{"symlink", tarGz(t, &tar.Header{Name: "addon.yaml", Typeflag: tar.TypeReg, Mode: 0o644}, &tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}),
			nil, archive.ErrEntryType, "link"},
		{"device file", tarGz(t, &tar.Header{Name: "addon.yaml", Typeflag: tar.TypeReg, Mode: 0o644}, &tar.Header{Name: "null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}),
			nil, archive.ErrEntryType, "null"},
		{"no addon.yaml", tarGz(t, &tar.Header{Name: "other.yaml", Typeflag: tar.TypeReg, Mode: 0o644}),
			nil, spec.ErrInvalid, "no addon.yaml"},
		{"not an addonpack artifact", tarGz(t, &tar.Header{Name: "addon.yaml", Typeflag: tar.TypeReg, Mode: 0o644}),
			func(m *ocispec.Manifest) { m.ArtifactType = "application/vnd.cncf.flux.config.v1+json" }, spec.ErrInvalid, "artifactType"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, c := pushRaw(t, reg.Host(), tt.layer, tt.mutate)
			parent := t.TempDir()
			outside := filepath.Join(filepath.Dir(parent), "escaped.yaml")
			_, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, filepath.Join(parent, "out"), consume.PullOptions{})
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %v naming %q", err, tt.is, tt.want)
			}
			assertOnly(t, parent)
			if _, err := os.Stat(outside); err == nil {
				t.Fatal("a file was written outside the target")
			}
		})
	}
	t.Run("manifest checked before any layer is read", func(t *testing.T) {
		layer := tarGz(t, &tar.Header{Name: "addon.yaml", Typeflag: tar.TypeReg, Mode: 0o644})
		ref, c := pushRaw(t, reg.Host(), layer, func(m *ocispec.Manifest) { m.ArtifactType = "application/x-other" })
		reg.ResetLog()
		_, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, filepath.Join(t.TempDir(), "out"), consume.PullOptions{})
		if err == nil {
			t.Fatal("accepted")
		}
		for _, r := range reg.Log() {
			if r.Method == http.MethodGet && strings.Contains(r.Path, digest.FromBytes(layer).String()) {
				t.Fatalf("the content layer was fetched before the manifest was checked: %+v", r)
			}
		}
	})
}

func TestFromLayout(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	if _, err := build.Package(ctx, helloExample, build.Output{LayoutDir: dir}, build.Options{}); err != nil {
		t.Fatal(err)
	}
	src, err := artifact.OpenLayout(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "hello")
	if _, err := consume.Pull(ctx, src, out, consume.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	assertSameTree(t, helloExample, out)
}
