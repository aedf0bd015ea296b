package push_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/push"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

const hello = "../../examples/hello"

// TestPushSources pushes a source directory and the OCI layout of the same
// build: both land on the same digest.
func TestPushSources(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := registry.ParseReference(reg.Host() + "/addons/hello:0.1.0")
	fromDir, err := push.Push(ctx, c, hello, ref, push.Options{})
	if err != nil {
		t.Fatal(err)
	}
	layoutDir := filepath.Join(t.TempDir(), "layout")
	if _, err := build.Package(ctx, hello, build.Output{LayoutDir: layoutDir}, build.Options{}); err != nil {
		t.Fatal(err)
	}
	fromLayout, err := push.Push(ctx, c, layoutDir, ref, push.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fromDir.Ref.Digest != fromLayout.Ref.Digest || fromDir.Tag != "0.1.0" {
		t.Fatalf("directory %s, layout %s", fromDir.Ref, fromLayout.Ref)
	}
	// A directory that is both a source and a layout is refused.
	both := t.TempDir()
	os.CopyFS(both, os.DirFS(layoutDir))
	os.WriteFile(filepath.Join(both, "addon.yaml"), []byte("x"), 0o644)
	if _, err := push.Push(ctx, c, both, ref, push.Options{}); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("ambiguous source: %v", err)
	}
}

// TestUnlockFailurePushesNothing: the key is unlocked while the add-on
// builds and uploads; a failure, at once or while blobs upload, leaves no
// manifest and no tag (blobs already sent stay unreferenced). Whether a
// failure at once is noticed before the first upload depends on when its
// goroutine runs, so that is not asserted here: the command line reads the
// key and its password before Push (keys.ReadSigner), and its failures
// send nothing (TestPushKeyFailsFirst in cmd/addonpack/commands).
func TestUnlockFailurePushesNothing(t *testing.T) {
	wrong := errors.New("wrong password")
	tests := []struct {
		name   string
		unlock func(ctx context.Context, blobsUp <-chan struct{}) (*keys.Signer, error)
	}{
		{name: "fails at once", unlock: func(context.Context, <-chan struct{}) (*keys.Signer, error) {
			return nil, wrong
		}},
		{name: "fails after the blobs are up", unlock: func(ctx context.Context, blobsUp <-chan struct{}) (*keys.Signer, error) {
			select {
			case <-blobsUp:
			case <-time.After(10 * time.Second):
			}
			return nil, wrong
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := testregistry.New(t)
			c, _ := registry.New(registry.Options{})
			ref, _ := registry.ParseReference(reg.Host() + "/addons/hello:0.1.0")
			blobsUp, stop := make(chan struct{}), make(chan struct{})
			t.Cleanup(func() { close(stop) })
			go func() { // the layer and the config are two PUTs of blob uploads
				tick := time.NewTicker(5 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
					}
					n := 0
					for _, r := range reg.Log() {
						if r.Method == "PUT" && strings.Contains(r.Path, "/blobs/uploads/") {
							n++
						}
					}
					if n >= 2 {
						close(blobsUp)
						return
					}
				}
			}()
			_, err := push.Push(context.Background(), c, hello, ref, push.Options{Sign: &push.SignOptions{
				Unlock: func(ctx context.Context) (*keys.Signer, error) { return tt.unlock(ctx, blobsUp) },
			}})
			if !errors.Is(err, wrong) {
				t.Fatalf("got %v", err)
			}
			for _, r := range reg.Log() {
				if strings.Contains(r.Path, "/manifests/") && r.Method != "GET" && r.Method != "HEAD" {
					t.Fatalf("a failed unlock still wrote a manifest: %s %s", r.Method, r.Path)
				}
			}
		})
	}
}

// TestAllUnlockFailure: a batch whose key cannot be unlocked fails as a
// whole and writes no manifest, though the add-ons built while it was
// being unlocked.
func TestAllUnlockFailure(t *testing.T) {
	reg := testregistry.New(t)
	c, _ := registry.New(registry.Options{})
	var items []push.Item
	for _, name := range []string{"a", "b", "c"} {
		ref, _ := registry.ParseReference(reg.Host() + "/batch/" + name + ":0.1.0")
		items = append(items, push.Item{Src: hello, Ref: ref})
	}
	wrong := errors.New("wrong password")
	calls := 0
	_, err := push.All(context.Background(), c, items, push.BatchOptions{Concurrency: 2, Options: push.Options{Sign: &push.SignOptions{
		Unlock: func(context.Context) (*keys.Signer, error) {
			calls++
			time.Sleep(50 * time.Millisecond)
			return nil, wrong
		},
	}}})
	if !errors.Is(err, wrong) || calls != 1 {
		t.Fatalf("got %v after %d unlocks, want the unlock error after one", err, calls)
	}
	for _, r := range reg.Log() {
		if strings.Contains(r.Path, "/manifests/") && r.Method != "GET" && r.Method != "HEAD" {
			t.Fatalf("a failed unlock still wrote a manifest: %s %s", r.Method, r.Path)
		}
	}
}

// TestPushWithoutTagTagsTheVersion: a destination naming no tag gets the
// add-on's version as its tag (the naming convention consumers and stacks
// look for), not an artifact reachable by digest only.
func TestPushWithoutTagTagsTheVersion(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := registry.ParseReference(reg.Host() + "/addons/hello")
	res, err := push.Push(ctx, c, hello, ref, push.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tag != "0.1.0" {
		t.Fatalf("tag %q, want the version 0.1.0", res.Tag)
	}
	tagged := ref
	tagged.Tag = "0.1.0"
	if d, err := c.Resolve(ctx, tagged); err != nil || d.Digest != res.Manifest.Digest {
		t.Fatalf("%s resolves to %v, %v; want %s", tagged, d.Digest, err, res.Manifest.Digest)
	}
}
