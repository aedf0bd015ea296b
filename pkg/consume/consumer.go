package consume

import (
	"context"
	"fmt"
	"os"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Consumer is the consumer path with one configuration: where artifacts are
// read from, how they must be trusted, and what every package it opens is
// rendered for. The CLI's consumer verbs build one from their flags and
// make one call on it; pkg/stack takes it for every add-on of a stack (it is
// stack's Loader, Opener, Puller and Deliverer); a Go program uses it as
// the example shows.
type Consumer struct {
	Options
	// KubeVersion is the target cluster's Kubernetes version given to every
	// package opened (for components that depend on it); zero for none.
	KubeVersion semver.Version
	// Relocated makes Package apply the relocation record that copy
	// --images stored beside a registry artifact (specs/relocation.md), as
	// far as the signed add-on vouches for it; TrustRelocatedTags applies it
	// to images the add-on names by tag only too.
	Relocated, TrustRelocatedTags bool
	// Limits bound an unpacked tree; zero fields take the defaults.
	Limits archive.Limits
	// FluxKey is the policy of the public key GitOps hands Flux to verify
	// with (render --for flux --public-key): every artifact must verify
	// under it too, or Flux would refuse it only once in the cluster.
	FluxKey *verify.Policy
}

// New returns a consumer with o; its other fields keep their zero values.
func New(o Options) *Consumer { return &Consumer{Options: o} }

// named returns the options with name as the add-on a reference must hold
// (a stack entry's name), or unchanged for "".
func (c *Consumer) named(name string) Options {
	o := c.Options
	if name != "" {
		o.Name = name
	}
	return o
}

// Artifact opens arg — a registry reference or an OCI layout, by the rule of
// ParseArg — for reading under the consumer's trust.
func (c *Consumer) Artifact(ctx context.Context, arg string) (*Artifact, error) {
	a, err := ParseArg(arg)
	if err != nil {
		return nil, err
	}
	return Open(ctx, a, c.Options)
}

// Source opens arg — a registry reference (with the cache in front) or an
// OCI layout — unverified, for a look at what it holds (inspect).
func (c *Consumer) Source(ctx context.Context, arg string) (artifact.Source, error) {
	a, err := ParseArg(arg)
	if err != nil {
		return nil, err
	}
	return c.source(ctx, a)
}

// source is Source for an argument already parsed.
func (c *Consumer) source(ctx context.Context, a Arg) (artifact.Source, error) {
	if a.Kind == KindSourceDir {
		return nil, fmt.Errorf("%s is an add-on source directory: build it (addonpack build %s -o LAYOUT) or push it first: %w", a.Raw, a.Raw, ErrNotUsable)
	}
	return Source(ctx, a, c.Options)
}

// Package opens arg as a package to configure and render: an add-on source
// directory (the user's own files, not verified), or an artifact verified
// and fetched by digest and unpacked privately. With Relocated, a registry
// reference gets the relocation its registry recorded (copy --images). The
// caller closes the package.
func (c *Consumer) Package(ctx context.Context, arg string) (*deliver.Package, error) {
	a, err := ParseArg(arg)
	if err != nil {
		return nil, err
	}
	if a.Kind == KindSourceDir {
		p, err := OpenDir(a.Path, c.Limits.Normalized())
		if err != nil {
			return nil, err
		}
		return c.ready(p), nil
	}
	art, err := Open(ctx, a, c.Options)
	if err != nil {
		return nil, err
	}
	p, err := c.fetch(ctx, art)
	if err != nil {
		return nil, err
	}
	if a.Kind == KindReference && c.Relocated {
		if err := c.relocate(ctx, a.Ref, p); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// fetch unpacks an opened artifact into a package.
func (c *Consumer) fetch(ctx context.Context, art *Artifact) (*deliver.Package, error) {
	p, err := Fetch(ctx, art.Source, art.PullOptions())
	if err != nil {
		return nil, err
	}
	return c.ready(p), nil
}

// ready gives p the consumer's Kubernetes version and log.
func (c *Consumer) ready(p *deliver.Package) *deliver.Package {
	p.KubeVersion, p.Log = c.KubeVersion, c.Warnings
	return p
}

// Load resolves ref once, verifies it under the consumer's trust and loads
// its manifest and config blob, bound to name (the repository's when "").
// No content layer is read. It is stack's Loader.
func (c *Consumer) Load(ctx context.Context, ref registry.Reference, name string) (*artifact.Loaded, error) {
	a, err := OpenReference(ref, c.named(name))
	if err != nil {
		return nil, err
	}
	return a.Load(ctx)
}

// Open is Package for a reference bound to name (a stack's locked add-on):
// verified, fetched by digest, unpacked privately. It is stack's Opener.
func (c *Consumer) Open(ctx context.Context, ref registry.Reference, name string) (*deliver.Package, error) {
	a, err := OpenReference(ref, c.named(name))
	if err != nil {
		return nil, err
	}
	return c.fetch(ctx, a)
}

// Pull verifies ref, bound to name, and unpacks it into dir, which must be
// missing or empty, returning what it verified. It is stack's Puller.
func (c *Consumer) Pull(ctx context.Context, ref registry.Reference, name, dir string) (*artifact.Loaded, error) {
	a, err := OpenReference(ref, c.named(name))
	if err != nil {
		return nil, err
	}
	res, err := a.Pull(ctx, dir, PullOptions{Limits: c.limits()})
	if err != nil {
		return nil, err
	}
	return res.Loaded, nil
}

// limits returns the consumer's unpack limits, nil for the defaults.
func (c *Consumer) limits() *archive.Limits {
	if c.Limits == (archive.Limits{}) {
		return nil
	}
	return &c.Limits
}

// UseFluxKey reads the public key file Flux is handed (render --for flux
// --public-key; "" : none) and makes it FluxKey, the policy every artifact
// must also pass; it returns the file's PEM.
func (c *Consumer) UseFluxKey(ctx context.Context, file string, getenv func(string) string) ([]byte, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--public-key: %w", err)
	}
	if c.FluxKey, err = verify.PolicyFromKeys(ctx, []string{file}, verify.KeyOptions{Getenv: getenv}); err != nil {
		return nil, fmt.Errorf("--public-key: %w", err)
	}
	return b, nil
}
