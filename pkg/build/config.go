package build

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// configCheck is the outcome of checking the component config at build time.
type configCheck struct {
	schemaJSON []byte               // canonical schema, carried in the config blob
	conversion *spec.ConversionBlob // the older versions' schemas, carried in a v2 config blob
	object     []byte               // the defaults object (YAML) the build-time render uses
	components []string             // components enabled by the defaults, relative to the kustomize root
	profiles   []profileCheck
}

// checkConfig compiles the schema and validates the packed defaults, as a
// consumer with no values of its own would get them. It returns nil when
// addon.yaml declares no config.
func (s *source) checkConfig(ctx context.Context, tree fs.FS, limits schema.Limits) (*configCheck, error) {
	t, err := config.Load(ctx, tree, s.addon, limits, s.displayPath)
	if err != nil || t == nil {
		return nil, err
	}
	ps, err := t.Profiles()
	if err != nil {
		return nil, err
	}
	profiles, err := s.checkProfiles(t, ps)
	if err != nil {
		return nil, err
	}
	var opts config.Options
	if t.NeedsKubeVersion() {
		// The defaults render needs a Kubernetes version: the lowest of
		// the profiles' (each profile is rendered too).
		opts.KubeVersion = slices.MinFunc(ps, func(a, b config.Profile) int { return a.KubeVersion.Compare(b.KubeVersion) }).KubeVersion
	}
	r, err := t.ResolveWith(nil, "", opts)
	if err != nil {
		return nil, err
	}
	if t.Chain != nil {
		if err := s.checkConversion(tree, t); err != nil {
			return nil, fmt.Errorf("%s: %w", s.displayPath(spec.FileName), err)
		}
	}
	cc := &configCheck{schemaJSON: t.Schema.JSON(), object: r.Object, profiles: profiles}
	if len(t.Older) > 0 {
		cc.conversion = &spec.ConversionBlob{Schemas: map[string]json.RawMessage{}}
		for _, v := range t.Older {
			cc.conversion.Schemas[v.APIVersion] = v.Schema.JSON()
		}
	}
	cc.components = s.relComponents(r.Components)
	return cc, nil
}

// relComponents is paths (components, relative to the package root)
// relative to the kustomize root, as render.Input lists them.
func (s *source) relComponents(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, spec.RelTo(s.addon.KustomizeRoot(), p))
	}
	return out
}
