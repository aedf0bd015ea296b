package build

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/render"
)

type countingMemo struct {
	m    map[string][]string
	hits int
}

func (m *countingMemo) Validated(key string) ([]string, bool) {
	v, ok := m.m[key]
	if ok {
		m.hits++
	}
	return v, ok
}
func (m *countingMemo) RememberValidated(key string, images []string) error {
	m.m[key] = images
	return nil
}

// TestMemoAfterAddonYAMLRace: when addon.yaml changes between parsing and
// packing (Build itself then stops: TestAddonYAMLChangedWhilePacking), a
// render check of the parsed one must not be remembered for the packed
// one: a later, race-free build of the packed addon.yaml renders again and
// fails. (Found in review; the memo key now covers the parsed addon.yaml.)
func TestMemoAfterAddonYAMLRace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/coredns")); err != nil {
		t.Fatal(err)
	}
	// A component that can never render (and that holds a remote resource).
	comp := filepath.Join(dir, "components/nodelocal/kustomization.yaml")
	if err := os.WriteFile(comp, []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- https://evil.example/x.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addon := filepath.Join(dir, "addon.yaml")
	b, _ := os.ReadFile(addon) // B: lists the component
	block := []byte("    components:\n      # Paths are relative to the package root.\n      - path: components/nodelocal\n        when: nodeLocalCache.enabled\n")
	if !bytes.Contains(b, block) {
		t.Fatal("example changed")
	}
	pad := append([]byte("#"), bytes.Repeat([]byte("x"), len(block)-2)...)
	pad = append(pad, '\n')
	a := bytes.Replace(b, block, pad, 1) // A: same size, no component
	memo := &countingMemo{m: map[string][]string{}}
	opts := Options{Memo: memo, Renderer: "test"}

	// Without the race, B does not build.
	if _, err := Build(ctx, dir, memory.New(), Options{}); !errors.Is(err, ErrRender) {
		t.Fatalf("B alone: %v, want ErrRender", err)
	}

	// The race: A is parsed, B is packed.
	os.WriteFile(addon, a, 0o644)
	src, err := loadSource(dir, opts.limits())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(addon, b, 0o644)
	pk, err := src.pack(ctx, "", opts.limits())
	if err != nil {
		t.Fatal(err)
	}
	defer pk.remove()
	tree := newPackedTree(src, pk)
	packed, err := tree.ReadFile("addon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("parsed addon has %d components; packed addon.yaml lists the component: %v",
		len(src.addon.Spec.Config.Components), bytes.Contains(packed, []byte("components/nodelocal")))
	cc, err := src.checkConfig(context.Background(), tree, opts.schemaLimits())
	if err != nil {
		t.Fatal(err)
	}
	in := renderInput(tree, src, cc)
	if _, err := src.renderCheckMemo(ctx, in, nil, pk.desc.Digest.String(), opts); err != nil {
		t.Fatalf("raced check: %v", err)
	}

	// Later, no race at all: B on disk, same layer, remembered check.
	res, err := Build(ctx, dir, memory.New(), opts)
	if err == nil {
		t.Errorf("B built with the render check skipped (memo hits %d); components: %+v", memo.hits, res.Addon.Spec.Config.Components)
	}
}

func renderInput(tree *packedTree, src *source, cc *configCheck) render.Input {
	in := render.Input{Files: tree, Root: src.addon.KustomizeRoot()}
	if cc != nil {
		in.Config, in.Components = cc.object, cc.components
	}
	return in
}
