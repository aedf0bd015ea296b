// Package deliver hands an add-on to whatever applies it: it opens a package
// (a local source directory, or an artifact fetched by digest — verified by
// the caller's hook — and unpacked into a private directory), resolves the
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
	"os"
	"path/filepath"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/pull"
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

	tmp string
}

// OpenDir opens an add-on source directory, with the files it would pack.
func OpenDir(dir string, limits archive.Limits) (*Package, error) {
	a, tree, err := build.LoadTree(dir, limits)
	if err != nil {
		return nil, err
	}
	return &Package{Name: dir, Files: tree, Addon: a}, nil
}

// Fetch resolves src once, runs opts.Verify, and unpacks the artifact into
// a private temporary directory that Close removes.
func Fetch(ctx context.Context, src artifact.Source, opts pull.Options) (*Package, error) {
	tmp, err := os.MkdirTemp("", "addonpack-*")
	if err != nil {
		return nil, err
	}
	tree := filepath.Join(tmp, "tree")
	res, err := pull.Pull(ctx, src, tree, opts)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &Package{Name: res.Ref, Files: os.DirFS(tree), Addon: res.Addon, Loaded: res.Loaded, tmp: tmp}, nil
}

// Close removes what Fetch unpacked.
func (p *Package) Close() error {
	if p.tmp == "" {
		return nil
	}
	return os.RemoveAll(p.tmp)
}

// ConfigType loads the package's component-config type (nil if none).
func (p *Package) ConfigType() (*config.Type, error) {
	return config.Load(p.Files, p.Addon, schema.DefaultLimits(), nil)
}

// input resolves values (nil for the packed defaults) into a render input.
func (p *Package) input(values []byte, valuesName string) (render.Input, error) {
	in, _, _, err := p.resolve(values, valuesName)
	return in, err
}

// resolve resolves values into a render input, returning the config type
// and the resolved config too (both nil for an add-on without one).
func (p *Package) resolve(values []byte, valuesName string) (render.Input, *config.Type, *config.Resolved, error) {
	in := render.Input{Files: p.Files, Root: p.Addon.KustomizeRoot(), Images: p.Images}
	t, err := p.ConfigType()
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
		in.Components = append(in.Components, build.RelTo(in.Root, c))
	}
	return in, t, r, nil
}

// ErrFormat is returned for an unknown output format.
var ErrFormat = errdef.New(errdef.ErrInvalidArgument, "unknown format")
