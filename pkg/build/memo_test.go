package build_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
)

// mapMemo is a build.Memo in a map, counting lookups that hit.
type mapMemo struct {
	m    map[string][]string
	hits int
}

func (m *mapMemo) Validated(key string) ([]string, bool) {
	images, ok := m.m[key]
	if ok {
		m.hits++
	}
	return images, ok
}

func (m *mapMemo) RememberValidated(key string, images []string) error {
	m.m[key] = images
	return nil
}

// TestMemo: a tree whose render check passed is not rendered again by the
// same renderer; another renderer, another tree or no renderer identity
// renders again; a failed check is not remembered, and everything but the
// render check still runs on a remembered tree.
func TestMemo(t *testing.T) {
	ctx := context.Background()
	memo := &mapMemo{m: map[string][]string{}}
	opts := build.Options{Memo: memo, Renderer: "addonpack test"}
	dir := copyTree(t, helloExample, 0o644, time.Unix(1, 0))

	first, err := build.Build(ctx, dir, memory.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(memo.m) != 1 || memo.hits != 0 {
		t.Fatalf("after the first build: %d records, %d hits", len(memo.m), memo.hits)
	}
	again, err := build.Build(ctx, dir, memory.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if memo.hits != 1 || again.Manifest.Digest != first.Manifest.Digest || !slices.Equal(again.Addon.Spec.Images, first.Addon.Spec.Images) {
		t.Fatalf("remembered build: %d hits, digest %s vs %s, images %q vs %q", memo.hits,
			again.Manifest.Digest, first.Manifest.Digest, again.Addon.Spec.Images, first.Addon.Spec.Images)
	}

	other := opts
	other.Renderer = "addonpack other"
	if _, err := build.Build(ctx, dir, memory.New(), other); err != nil || memo.hits != 1 || len(memo.m) != 2 {
		t.Fatalf("another renderer: err %v, %d hits, %d records", err, memo.hits, len(memo.m))
	}
	anonymous := opts
	anonymous.Renderer = ""
	if _, err := build.Build(ctx, dir, memory.New(), anonymous); err != nil || memo.hits != 1 || len(memo.m) != 2 {
		t.Fatalf("no renderer identity: err %v, %d hits, %d records", err, memo.hits, len(memo.m))
	}

	// Break the kustomization: another tree, so it renders, fails and is
	// not remembered.
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [missing.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := build.Build(ctx, dir, memory.New(), opts); !errors.Is(err, build.ErrRender) {
			t.Fatalf("broken tree: got %v", err)
		}
	}
	if memo.hits != 1 || len(memo.m) != 2 {
		t.Fatalf("broken tree: %d hits, %d records", memo.hits, len(memo.m))
	}
}

// TestMemoKeepsOtherChecks: a remembered tree still gets its addon.yaml,
// schema and defaults checked; the memo only covers kustomize.
func TestMemoKeepsOtherChecks(t *testing.T) {
	ctx := context.Background()
	memo := &mapMemo{m: map[string][]string{}}
	opts := build.Options{Memo: memo, Renderer: "addonpack test"}
	dir := copyTree(t, helloExample, 0o644, time.Unix(1, 0))
	res, err := build.Build(ctx, dir, memory.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// Remember the check under every key a changed tree could have: a
	// memo that answers yes to anything.
	yes := &alwaysMemo{images: res.Addon.Spec.Images}
	opts.Memo = yes
	if err := os.WriteFile(filepath.Join(dir, "addon.yaml"), []byte("apiVersion: addonpack.dev/v1alpha1\nkind: Addon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := build.Build(ctx, dir, memory.New(), opts); err == nil {
		t.Fatal("an invalid addon.yaml passed because the render check was remembered")
	}
}

type alwaysMemo struct{ images []string }

func (a *alwaysMemo) Validated(string) ([]string, bool)        { return a.images, true }
func (a *alwaysMemo) RememberValidated(string, []string) error { return nil }
