package build_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
)

// TestBuildLeavesNoTempFiles: a build writes its layer to a temporary file
// and removes it, whether it succeeds into a memory store, succeeds into a
// Spool (which adopts the file and removes it on Close) or fails.
func TestBuildLeavesNoTempFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx := context.Background()
	good := copyTree(t, helloExample, 0o644, time.Unix(1, 0))
	bad := copyTree(t, helloExample, 0o644, time.Unix(1, 0))
	if err := os.WriteFile(filepath.Join(bad, "kustomization.yaml"), []byte("resources: [missing.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	want, err := build.Build(ctx, good, memory.New(), build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := build.Build(ctx, bad, memory.New(), build.Options{}); !errors.Is(err, build.ErrRender) {
		t.Fatalf("broken kustomization: got %v", err)
	}
	spool, err := build.NewSpool("")
	if err != nil {
		t.Fatal(err)
	}
	got, err := build.Build(ctx, good, spool, build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Manifest.Digest != want.Manifest.Digest {
		t.Fatalf("spooled build %s, memory build %s", got.Manifest.Digest, want.Manifest.Digest)
	}
	// The spool serves the layer from its file, byte for byte.
	layer, err := content.FetchAll(ctx, spool, got.Layers[0])
	if err != nil || int64(len(layer)) != got.Layers[0].Size {
		t.Fatalf("fetching the spooled layer: %d bytes, %v", len(layer), err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Fatalf("temporary directory holds %d entries besides the spool, want only the spool", len(entries)-1)
	}
	if err := spool.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("left behind in the temporary directory: %v", entries[0].Name())
	}
}

// TestSpoolPushFetch: the Spool is a content store for small blobs too.
func TestSpoolPushFetch(t *testing.T) {
	spool, err := build.NewSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	ctx := context.Background()
	data := []byte(`{"a":1}`)
	d := content.NewDescriptorFromBytes("application/json", data)
	if ok, _ := spool.Exists(ctx, d); ok {
		t.Fatal("exists before push")
	}
	if err := spool.Push(ctx, d, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	got, err := content.FetchAll(ctx, spool, d)
	if err != nil || string(got) != string(data) {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestBuildConcurrent: builds run their kustomize checks side by side (a
// batch push builds several add-ons at once); each gets the digest it gets
// alone.
func TestBuildConcurrent(t *testing.T) {
	ctx := context.Background()
	dirs := []string{helloExample, "../../examples/coredns", "../../examples/cert-operator", "../../examples/metrics-server", "../../examples/cert-manager"}
	want := map[string]string{}
	for _, d := range dirs {
		res, err := build.Build(ctx, d, memory.New(), build.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want[d] = res.Manifest.Digest.String()
	}
	errs := make(chan error, 4*len(dirs))
	var wg sync.WaitGroup
	for i := range 4 * len(dirs) {
		d := dirs[i%len(dirs)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := build.Build(ctx, d, memory.New(), build.Options{})
			if err == nil && res.Manifest.Digest.String() != want[d] {
				err = fmt.Errorf("%s: %s concurrently, %s alone", d, res.Manifest.Digest, want[d])
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
