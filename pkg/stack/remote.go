package stack

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Loader is the consumer path for one reference: resolved once, verified
// under the policy scope of ref's repository, manifest and config blob
// fetched by digest and checked, and the signed add-on bound to the
// reference's claims — its name is name, a semver tag its version
// (specs/artifact.md section 11.6). No content layer is read.
type Loader interface {
	Load(ctx context.Context, ref registry.Reference, name string) (*artifact.Loaded, error)
}

// SignedLoader is a Loader that also says who signed what it loaded,
// having verified it afresh (consume.Consumer): a lock records it
// (specs/stack.md section 4.8).
type SignedLoader interface {
	LoadSigned(ctx context.Context, ref registry.Reference, name string) (*artifact.Loaded, []verify.Signer, error)
}

// Remote is the Registry of a real resolution: tags from a TagLister,
// artifacts through a Loader (a SignedLoader's signers are recorded).
type Remote struct {
	Tags   semver.TagLister
	Loader Loader
	Limits registry.TagLimits
}

// Versions lists repo's tags as versions.
func (r Remote) Versions(ctx context.Context, repo registry.Reference) (semver.List, error) {
	tags, err := r.Tags.Tags(ctx, repo, r.Limits)
	if err != nil {
		return semver.List{}, err
	}
	return semver.FromTags(tags), nil
}

// Open loads ref through the consumer path.
func (r Remote) Open(ctx context.Context, ref registry.Reference, name string) (Artifact, error) {
	var (
		l       *artifact.Loaded
		signers []verify.Signer
		err     error
	)
	if sl, ok := r.Loader.(SignedLoader); ok {
		l, signers, err = sl.LoadSigned(ctx, ref, name)
	} else {
		l, err = r.Loader.Load(ctx, ref, name)
	}
	if err != nil {
		return Artifact{}, err
	}
	v, err := semver.Parse(l.Addon.Spec.Version)
	if err != nil {
		return Artifact{}, fmt.Errorf("%s: spec.version: %w", ref.WithDigest(l.Descriptor.Digest), err)
	}
	return Artifact{Digest: l.Descriptor.Digest, Name: l.Addon.Metadata.Name, Version: v, Dependencies: l.Addon.Spec.Dependencies,
		Signers: fromVerify(signers)}, nil
}
