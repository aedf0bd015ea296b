package build

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/render"
)

// profileCheck is one profile of the config type (config.Type.Profiles:
// an enum value of each field a `when` reads, a Kubernetes version), as
// the builder renders it.
type profileCheck struct {
	name       string
	object     []byte   // the resolved config object of the profile
	components []string // the components it enables, relative to the kustomize root
	allOn      []string // the same with every boolean `when` true
}

// checkProfiles resolves every profile of t (t.Profiles: none for a type
// whose components depend on booleans only), as a consumer who sets only
// the profile's enum fields and Kubernetes version gets it.
func (s *source) checkProfiles(t *config.Type, profiles []config.Profile) ([]profileCheck, error) {
	var out []profileCheck
	for _, p := range profiles {
		opts := config.Options{KubeVersion: p.KubeVersion}
		r, err := t.ResolveWith(p.Object(t), "profile "+p.Name, opts)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.Name, err)
		}
		all, err := t.AllOn(r.Spec, opts)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.Name, err)
		}
		out = append(out, profileCheck{name: p.Name, object: r.Object, components: s.relComponents(r.Components), allOn: s.relComponents(all)})
	}
	return out, nil
}

// renderProfiles renders every profile twice — as its consumer gets it and
// with every boolean component on — and returns the images of all.
func (s *source) renderProfiles(ctx context.Context, in render.Input, profiles []profileCheck) ([]string, error) {
	where := s.displayPath(s.addon.KustomizeRoot())
	var images []string
	for _, p := range profiles {
		for _, comps := range [][]string{p.components, p.allOn} {
			pin := in
			pin.Config, pin.Components = p.object, comps
			more, err := render.Check(ctx, pin)
			if err != nil {
				return nil, fmt.Errorf("%s for profile %s (components %v): %w: %w", where, p.name, comps, ErrRender, err)
			}
			images = append(images, more...)
		}
	}
	return images, nil
}
