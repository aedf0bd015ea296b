package build

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/render"
	"github.com/addonpack/addonpack/pkg/spec"
)

// renderCheck builds the kustomization as a consumer with the packed
// defaults gets it, as kubectl apply -k, Flux and Argo CD get it (a plain
// build of the tree) and, when the add-on has components, once more with every
// component on, so that a component the defaults leave off is checked too
// (remote resources, plugins, broken manifests). It returns the images of
// both renderings. An add-on with profiles (components chosen by enum
// values or Kubernetes versions, addonpack.dev/v1alpha2) has every profile
// rendered instead of the every-component-on build, whose components may
// exclude one another (renderProfiles).
func (s *source) renderCheck(ctx context.Context, in render.Input, profiles []profileCheck) ([]string, error) {
	where := s.displayPath(s.addon.KustomizeRoot())
	images, err := render.Check(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", where, ErrRender, err)
	}
	c := s.addon.Spec.Config
	if c != nil && len(in.Config) > 0 {
		if err := s.checkPlain(ctx, in); err != nil {
			return nil, err
		}
	}
	if len(profiles) > 0 {
		more, err := s.renderProfiles(ctx, in, profiles)
		if err != nil {
			return nil, err
		}
		images = append(images, more...)
		slices.Sort(images)
		return slices.Compact(images), nil
	}
	if c == nil || len(c.Components) == 0 {
		return images, nil
	}
	all := in
	all.Components = nil
	for _, comp := range c.Components {
		all.Components = append(all.Components, spec.RelTo(s.addon.KustomizeRoot(), comp.Path))
	}
	more, err := render.Check(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("%s with every component of spec.config.components enabled: %w: %w", where, ErrRender, err)
	}
	images = append(images, more...)
	slices.Sort(images)
	return slices.Compact(images), nil
}

// renderCheckMemo is renderCheck, skipped for a tree opts.Memo remembers.
func (s *source) renderCheckMemo(ctx context.Context, in render.Input, profiles []profileCheck, layer string, opts Options) ([]string, error) {
	memo := opts.memo()
	if memo == nil {
		return s.renderCheck(ctx, in, profiles)
	}
	key := opts.memoKey(layer, s.addonSum[:], in)
	if images, ok := memo.Validated(key); ok {
		return images, nil
	}
	images, err := s.renderCheck(ctx, in, profiles)
	if err != nil {
		return nil, err
	}
	// Failing to remember only costs the next build time.
	_ = memo.RememberValidated(key, images)
	return images, nil
}

// checkImages derives spec.images from the rendered output when addon.yaml
// omits them, and otherwise requires every rendered image to be declared,
// so the list consumers rely on (for mirroring, scanning, relocation) is
// complete.
func checkImages(a *spec.Addon, rendered []string, file string) error {
	if len(a.Spec.Images) == 0 {
		a.Spec.Images = rendered
		return nil
	}
	var missing []string
	for _, img := range rendered {
		if !slices.Contains(a.Spec.Images, img) {
			missing = append(missing, img)
		}
	}
	if len(missing) > 0 {
		return &spec.FieldError{File: file, Field: "spec.images",
			Msg: fmt.Sprintf("the manifests use images that are not declared: %s (declare them, or omit spec.images to derive the list)", strings.Join(missing, ", "))}
	}
	return nil
}

// checkStandalone makes sure that packed defaults listed as a resource of
// the root kustomization — so that the package builds standalone for
// kubectl apply -k, Flux and Argo CD — are marked
// config.kubernetes.io/local-config, or they would be applied to the cluster.
// A static check: no kustomize run.
func (s *source) checkStandalone(in render.Input) error {
	c := s.addon.Spec.Config
	if c == nil {
		return nil
	}
	listed, local, err := render.PackedConfig(in.Files, in.Root, c.APIVersion, c.Kind)
	if err != nil || listed == "" || local {
		return err
	}
	return &spec.FieldError{File: s.displayPath(listed), Field: "metadata.annotations",
		Msg: fmt.Sprintf("the %s object is listed in the kustomization but not annotated config.kubernetes.io/local-config: \"true\", so kubectl apply -k, Flux and Argo CD would apply it to the cluster", c.Kind)}
}

// defaultsName names the defaults object for a message.
func defaultsName(path string) string {
	if path == "" {
		return "the defaults object"
	}
	return path
}

// checkPlain makes sure the package builds standalone: what kubectl apply
// -k, Flux and Argo CD run, a plain kustomize build of the packed tree with
// nothing wired in. It is skipped when the render check just run (in) was
// that build already (render.PlainEquivalent: the packed defaults are
// listed, complete and enable no component), so that a package pays one
// kustomize run, not two, for the same tree.
func (s *source) checkPlain(ctx context.Context, in render.Input) error {
	if same, err := render.PlainEquivalent(in); err == nil && same {
		return nil
	}
	c := s.addon.Spec.Config
	if _, err := render.Check(ctx, render.Input{Files: in.Files, Root: in.Root}); err != nil {
		return fmt.Errorf("%s: %w: the package does not build standalone, as kubectl apply -k, Flux and Argo CD build it "+
			"(a plain kustomize build, without addonpack wiring in %s): list %s in the kustomization's resources, "+
			"annotated config.kubernetes.io/local-config: \"true\", inside the kustomization root: %w",
			s.displayPath(s.addon.KustomizeRoot()), ErrRender, defaultsName(c.Defaults), defaultsName(c.Defaults), err)
	}
	return nil
}
