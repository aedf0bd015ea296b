package push_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
// builds, and a failure stops the push before anything reaches the registry.
func TestUnlockFailurePushesNothing(t *testing.T) {
	reg := testregistry.New(t)
	c, _ := registry.New(registry.Options{})
	ref, _ := registry.ParseReference(reg.Host() + "/addons/hello:0.1.0")
	wrong := errors.New("wrong password")
	_, err := push.Push(context.Background(), c, hello, ref, push.Options{Sign: &push.SignOptions{
		Unlock: func(context.Context) (*keys.Signer, error) { return nil, wrong },
	}})
	if !errors.Is(err, wrong) {
		t.Fatalf("got %v", err)
	}
	for _, r := range reg.Log() {
		if r.Method != "GET" && r.Method != "HEAD" {
			t.Fatalf("a failed unlock still wrote to the registry: %s %s", r.Method, r.Path)
		}
	}
}
