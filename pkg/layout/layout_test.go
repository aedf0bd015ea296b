package layout_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/layout"
)

// graph stores a tiny manifest with one config and one layer.
func graph(t *testing.T) (*memory.Store, ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	store := memory.New()
	put := func(mt string, data []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
		if err := store.Push(ctx, d, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	cfg := put("application/vnd.example.config+json", []byte("{}"))
	layer := put(ocispec.MediaTypeImageLayerGzip, []byte("layer bytes"))
	m := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.example.config+json","digest":"` +
		cfg.Digest.String() + `","size":2},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"` + layer.Digest.String() + `","size":11}]}`)
	return store, put(ocispec.MediaTypeImageManifest, m)
}

func TestDirAndTarball(t *testing.T) {
	ctx := context.Background()
	store, root := graph(t)
	dir := t.TempDir()
	tarball := filepath.Join(dir, "a.tar")
	if err := layout.WriteDir(ctx, store, root, filepath.Join(dir, "layout"), "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if err := layout.WriteTarball(ctx, store, root, tarball, "1.0.0"); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(tarball)
	if err := layout.WriteTarball(ctx, store, root, tarball, "1.0.0"); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(tarball)
	if !bytes.Equal(first, second) {
		t.Fatal("the tarball is not deterministic")
	}
	for _, spec := range []string{filepath.Join(dir, "layout"), tarball, tarball + ":1.0.0"} {
		s, got, err := layout.Open(ctx, spec)
		if err != nil {
			t.Fatalf("Open(%s): %v", spec, err)
		}
		if got.Digest != root.Digest {
			t.Fatalf("Open(%s) = %s, want %s", spec, got.Digest, root.Digest)
		}
		if _, err := content.FetchAll(ctx, s, got); err != nil {
			t.Fatal(err)
		}
		if !layout.IsLayout(spec) {
			t.Errorf("IsLayout(%s) = false", spec)
		}
	}
	if _, _, err := layout.Open(ctx, tarball+":2.0.0"); err == nil || !strings.Contains(err.Error(), "2.0.0") {
		t.Fatalf("missing tag: %v", err)
	}
	// A second tag makes an untagged Open ambiguous.
	if err := layout.WriteDir(ctx, store, root, filepath.Join(dir, "layout"), "latest"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := layout.Open(ctx, filepath.Join(dir, "layout")); !errors.Is(err, layout.ErrLayout) || !strings.Contains(err.Error(), "name one as") {
		t.Fatalf("ambiguous layout: %v", err)
	}
	if layout.IsLayout(dir) || layout.IsLayout(filepath.Join(dir, "missing")) {
		t.Error("IsLayout accepts a plain directory or a missing path")
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string][2]string{
		"out/hello.tar":       {"out/hello.tar", ""},
		"out/hello.tar:1.0.0": {"out/hello.tar", "1.0.0"},
		"dir:with/slash":      {"dir:with/slash", ""},
	} {
		if p, tag := layout.Split(in); p != want[0] || tag != want[1] {
			t.Errorf("Split(%q) = %q, %q; want %q", in, p, tag, want)
		}
	}
}
