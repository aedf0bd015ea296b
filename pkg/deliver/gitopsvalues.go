package deliver

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/render"
	"github.com/addonpack/addonpack/pkg/spec"
)

// ErrNotPatchable is returned when a user's values cannot reach Flux or
// Argo CD through the root kustomization of the package as published.
var ErrNotPatchable = errdef.New(errdef.ErrInvalid, "values cannot reach Flux or Argo CD through a patch")

// Edits are what Flux (Kustomization spec.patches, spec.components) and
// Argo CD (Application source.kustomize.patches, .components) append to
// the root kustomization of the package they build from the registry.
type Edits struct {
	Patches    []render.Patch
	Components []string
}

// GitOpsEdits resolves values exactly as Render does and returns the edits
// that make Flux and Argo CD build the package as Render builds it with
// those values: one JSON 6902 patch replacing the spec of the package's
// config object (its packed defaults, listed in the root kustomization's
// resources) by the resolved spec — kustomize runs the root's patches
// before its replacements, which then copy the user's values into the
// manifests — and the components the values enable that the root
// kustomization does not list already.
//
// Kustomize runs a component's own replacements, and a base's, before the
// root's patches, so those would still read the packed defaults. Rather
// than reason about each package, GitOpsEdits builds it both ways in
// process — as the controllers would, with the edits appended to the root
// kustomization, and as Render does — and returns ErrNotPatchable, with the
// first lines of the difference, unless the outputs are byte-identical
// (the edits it checked come with that error).
func (p *Package) GitOpsEdits(ctx context.Context, values []byte, valuesName string) (Edits, error) {
	in, t, r, err := p.resolve(ctx, values, valuesName)
	if err != nil {
		return Edits{}, err
	}
	if t == nil {
		return Edits{}, fmt.Errorf("%s: %s declares no config type (spec.config in addon.yaml): %w", valuesName, p.Name, config.ErrNoConfig)
	}
	packed, _, err := render.PackedConfig(p.Files, in.Root, t.APIVersion, t.Kind)
	if err != nil {
		return Edits{}, fmt.Errorf("%s: %w", p.Name, err)
	}
	if packed == "" {
		return Edits{}, fmt.Errorf("%s: the root kustomization lists no %s object in its resources, so a patch has nothing to set (specs/config.md section 7, standalone packages); render --format kustomize -o DIR and commit the directory: %w",
			p.Name, t.Kind, ErrNotPatchable)
	}
	listed, err := render.RootComponents(p.Files, in.Root)
	if err != nil {
		return Edits{}, fmt.Errorf("%s: %w", p.Name, err)
	}
	patch, err := specPatch(t, r.Spec)
	if err != nil {
		return Edits{}, err
	}
	e := Edits{Patches: []render.Patch{patch}}
	for _, c := range in.Components {
		if !slices.Contains(listed, c) && !slices.Contains(e.Components, c) {
			e.Components = append(e.Components, c)
		}
	}
	want, err := render.Build(ctx, in)
	if err != nil {
		return Edits{}, fmt.Errorf("%s: %w", p.Name, err)
	}
	got, err := render.Build(ctx, render.Input{Files: p.Files, Root: in.Root, Images: in.Images, Patches: e.Patches, Components: e.Components})
	if err != nil {
		return Edits{}, fmt.Errorf("%s: with the values as a patch: %w", p.Name, err)
	}
	if !bytes.Equal(want, got) {
		d, err := Diff(want, got, "addonpack render --values "+valuesName, "the package with the patch (as Flux and Argo CD build it)")
		if err != nil {
			return Edits{}, err
		}
		return e, fmt.Errorf("%s: %s: the package built with the values as a patch differs from addonpack render: kustomize runs the replacements of components and bases before the root's patches, so they read the packed defaults (the publisher can move replacements that read %s into the root kustomization); render --format kustomize -o DIR and commit the directory instead: %w\n%s",
			p.Name, valuesName, t.Kind, ErrNotPatchable, head(d, 12))
	}
	return e, nil
}

// specPatch is a JSON 6902 patch that replaces the spec of the config
// object, selected by group, version and kind only: a standalone build
// names the object as its defaults file does, addonpack after the add-on.
func specPatch(t *config.Type, spec any) (render.Patch, error) {
	body, err := yaml.Marshal([]any{map[string]any{"op": "replace", "path": "/spec", "value": spec}})
	if err != nil {
		return render.Patch{}, err
	}
	group, version, ok := strings.Cut(t.APIVersion, "/")
	if !ok {
		group, version = "", t.APIVersion
	}
	return render.Patch{Patch: string(body), Target: &render.Selector{Group: group, Version: version, Kind: t.Kind}}, nil
}

// head returns the first n lines of s.
func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return strings.TrimRight(s, "\n")
	}
	return strings.TrimRight(strings.Join(lines[:n], ""), "\n") + "\n…"
}

// HasProfiles reports whether a's components depend on enum values or the
// Kubernetes version (addonpack.dev/v1alpha2 profiles). The package as
// published then builds with none of them, so Flux and Argo CD objects for
// it always carry GitOpsEdits, even for the packed defaults.
func HasProfiles(a *spec.Addon) bool {
	if a.Spec.Config == nil {
		return false
	}
	for _, c := range a.Spec.Config.Components {
		if c.Kubernetes != "" || strings.Contains(c.When, "[") {
			return true
		}
	}
	return len(a.Spec.Config.Overlays) > 0
}
