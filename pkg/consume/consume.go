package consume

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/verify"
)

// ErrUnverifiable is matched when verification is required of an artifact
// that carries no signatures: an OCI layout.
var ErrUnverifiable = errdef.New(errdef.ErrInvalidArgument, "cannot be verified")

// Artifact is one add-on artifact opened for consumption: where it is read
// from, and the check its digest passes before any of its content is read.
type Artifact struct {
	// Source reads the artifact: the registry behind the cache, the cache
	// alone (offline), or an OCI layout.
	Source artifact.Source
	gate   func(ctx context.Context, desc ocispec.Descriptor) error
	// claim is what a registry reference says about the add-on; the
	// verified config blob must agree where pull reads it.
	claim *spec.Claim
}

// Open opens a located argument for consumption: a registry reference
// (OpenReference) or an OCI layout, directory or tarball, which carries no
// signatures and is read only with InsecureSkipVerify. An add-on source
// directory is not an artifact (ErrNotUsable).
func Open(ctx context.Context, a Arg, o Options) (*Artifact, error) {
	switch a.Kind {
	case KindReference:
		return OpenReference(a.Ref, o)
	case KindSourceDir:
		return nil, fmt.Errorf("%s is an add-on source directory, not an artifact: build or push it first: %w", a.Raw, ErrNotUsable)
	}
	if !o.InsecureSkipVerify {
		return nil, fmt.Errorf("%s is an OCI layout: signatures live in registries, so verify the pushed copy, or pass --insecure-skip-verify: %w", a.Raw, ErrUnverifiable)
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	src, err := Source(ctx, a, o)
	if err != nil {
		return nil, err
	}
	o.warnf("--insecure-skip-verify: %s is not verified", a.Raw)
	return &Artifact{Source: src}, nil
}

// OpenReference opens an artifact in a registry for consumption, with the
// cache in front when o has one. Nothing is requested until the artifact is
// loaded or pulled.
func OpenReference(ref registry.Reference, o Options) (*Artifact, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	src, err := o.remote(ref)
	if err != nil {
		return nil, err
	}
	claim := verify.Claim(ref, o.Name, o.Policy)
	return &Artifact{Source: src, gate: o.gate(ref), claim: &claim}, nil
}

// Source chooses where a located argument is read from — a registry
// reference through o.Client with o.Cache in front (alone when o.Offline),
// an OCI layout directory or tarball — and verifies nothing: for looking at
// an artifact (inspect), not for using it. The trust fields of o are not
// used.
func Source(ctx context.Context, a Arg, o Options) (artifact.Source, error) {
	switch a.Kind {
	case KindSourceDir:
		return nil, fmt.Errorf("%s is an add-on source directory, not an artifact: build or push it first: %w", a.Raw, ErrNotUsable)
	case KindLayoutDir, KindTarball:
		return artifact.OpenLayout(ctx, a.Layout)
	}
	return o.remote(a.Ref)
}

// remote is the source of a registry reference: o.Client, with o.Cache in
// front.
func (o Options) remote(ref registry.Reference) (artifact.Source, error) {
	if o.Client == nil {
		return nil, fmt.Errorf("%w: %s: no registry client", ErrOptions, ref)
	}
	var src artifact.Source = artifact.Remote{Client: o.Client, Ref: ref}
	if o.Cache != nil {
		src = cache.Source{Inner: src, Cache: o.Cache, Offline: o.Offline}
	}
	return src, nil
}

// gate returns the check of a resolved digest of ref: verification under
// the policy, remembered in the cache (and, offline, answered only from
// there); with InsecureSkipVerify, a warning.
func (o Options) gate(ref registry.Reference) func(context.Context, ocispec.Descriptor) error {
	if o.Policy == nil {
		return func(_ context.Context, d ocispec.Descriptor) error {
			o.warnf("--insecure-skip-verify: %s is not verified; its digest proves integrity, not who published it", ref.WithDigest(d.Digest))
			return nil
		}
	}
	t := verify.Target{Client: o.Client, Ref: ref}
	// The gate wants the decision only (verify.MemoOptions.Sufficient).
	mo := verify.MemoOptions{Memo: o.memo(), MaxAge: o.ttl(), Only: o.Offline, Sufficient: true}
	return func(ctx context.Context, d ocispec.Descriptor) error {
		_, _, err := verify.Remembered(ctx, t, d, o.Policy, mo)
		return offlineErr(err)
	}
}

// PullOptions returns pull options whose Verify is the artifact's check and
// whose Claim binds a registry reference to the add-on it names, for
// Pull, Load or deliver.Fetch with a.Source.
func (a *Artifact) PullOptions() PullOptions {
	return PullOptions{Verify: a.gate, Claim: a.claim}
}

// Load resolves the artifact once, checks the digest (verification) and only
// then fetches and checks its manifest and config. No content layer is read.
func (a *Artifact) Load(ctx context.Context) (*artifact.Loaded, error) {
	return Load(ctx, a.Source, a.PullOptions())
}

// Pull resolves the artifact once, checks the digest and unpacks its package
// tree into dir (Pull). opts tunes the unpacking; its Verify, if set,
// runs after the artifact's own check; its Claim is the artifact's.
func (a *Artifact) Pull(ctx context.Context, dir string, opts PullOptions) (*PullResult, error) {
	opts.Verify, opts.Claim = a.then(opts.Verify), a.claim
	return Pull(ctx, a.Source, dir, opts)
}

// Unpack places the package tree of an artifact Load returned into dir, by
// the digest Load verified: a tag that moved since is not followed.
func (a *Artifact) Unpack(ctx context.Context, loaded *artifact.Loaded, dir string, opts PullOptions) (*PullResult, error) {
	return Unpack(ctx, a.Source, loaded, dir, opts)
}

// then runs the artifact's check and, when it passes, next.
func (a *Artifact) then(next func(context.Context, ocispec.Descriptor) error) func(context.Context, ocispec.Descriptor) error {
	if next == nil {
		return a.gate
	}
	if a.gate == nil {
		return next
	}
	return func(ctx context.Context, d ocispec.Descriptor) error {
		if err := a.gate(ctx, d); err != nil {
			return err
		}
		return next(ctx, d)
	}
}
