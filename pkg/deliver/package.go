// Package deliver hands an add-on to whatever applies it: given a package
// (a local source directory, or an artifact pkg/consume fetched by digest
// after verification and unpacked into a private directory), it resolves the
// user's config against the packed schema, and renders YAML or JSON for
// kubectl, writes a kustomize directory for kubectl -k, Flux or Argo CD, or
// prints the Flux and Argo CD objects that consume the artifact straight from
// the registry.
package deliver

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/render"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Package is an add-on's files and manifest, ready to configure and render.
type Package struct {
	// Name is the pinned reference, or the source directory.
	Name  string
	Files fs.FS
	Addon *spec.Addon
	// Loaded is the artifact the package came from; nil for a directory.
	Loaded *artifact.Loaded
	// Images, when set, relocate the add-on's images (kustomize `images`
	// entries), as recorded by `addonpack copy --images`.
	Images []render.Image
	// KubeVersion is the target cluster's Kubernetes version
	// (config.ParseKubeVersion), for components that depend on it.
	KubeVersion semver.Version
	// Log, when set, is told of every conversion of the user's config
	// object to the current config version ("values.yaml: converted
	// v1alpha1 → v1beta1"), as specs/config.md section 9.2 requires.
	Log io.Writer

	done func() error
}

// New returns the package of files (a tree holding addon.yaml a). loaded
// is the artifact the files came from (nil for a source directory); done,
// when set, is run by Close (removing a fetched tree).
func New(name string, files fs.FS, a *spec.Addon, loaded *artifact.Loaded, done func() error) *Package {
	return &Package{Name: name, Files: files, Addon: a, Loaded: loaded, done: done}
}

// Close releases the package's files (see New).
func (p *Package) Close() error {
	if p.done == nil {
		return nil
	}
	return p.done()
}

// ConfigType loads the package's component-config type (nil if none).
func (p *Package) ConfigType() (*config.Type, error) {
	return p.configType(context.Background())
}

// configType is ConfigType, counting its compilations in ctx (pkg/tally).
func (p *Package) configType(ctx context.Context) (*config.Type, error) {
	return config.Load(ctx, p.Files, p.Addon, schema.DefaultLimits(), nil)
}

// input resolves values (nil for the packed defaults) into a render input.
func (p *Package) input(ctx context.Context, values []byte, valuesName string) (render.Input, error) {
	in, _, _, err := p.resolve(ctx, values, valuesName)
	return in, err
}

// resolve resolves values into a render input, returning the config type
// and the resolved config too (both nil for an add-on without one).
func (p *Package) resolve(ctx context.Context, values []byte, valuesName string) (render.Input, *config.Type, *config.Resolved, error) {
	in := render.Input{Files: p.Files, Root: p.Addon.KustomizeRoot(), Images: p.Images}
	t, err := p.configType(ctx)
	if err != nil {
		return in, nil, nil, err
	}
	if t == nil {
		if values != nil {
			return in, nil, nil, fmt.Errorf("%s: %s declares no config type (spec.config in addon.yaml): %w", valuesName, p.Name, config.ErrNoConfig)
		}
		return in, nil, nil, nil
	}
	r, err := t.ResolveWith(values, valuesName, config.Options{KubeVersion: p.KubeVersion})
	if err != nil {
		return in, nil, nil, err
	}
	if r.Conversion != nil && p.Log != nil {
		fmt.Fprintf(p.Log, "%s: %s\n", valuesName, r.Conversion.Summary())
	}
	in.Config = r.Object
	for _, c := range r.Components {
		in.Components = append(in.Components, spec.RelTo(in.Root, c))
	}
	return in, t, r, nil
}

// ErrFormat is returned for an unknown output format.
var ErrFormat = errdef.New(errdef.ErrInvalidArgument, "unknown format")
