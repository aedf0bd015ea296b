package registry

import (
	"context"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ResolveManifest resolves ref once, as Resolve does, but with a single GET
// that also returns the manifest bytes: one request instead of Resolve's
// HEAD followed by FetchManifest's GET. The digest is computed from the
// bytes received (never taken from a header), so the descriptor and the
// bytes always agree; the body is bounded by MaxManifestSize (ErrTooLarge).
// When ref has both a tag and a digest, the tag is resolved and must yield
// that digest (errdef.ErrDigestMismatch). A missing manifest or tag yields
// ErrNotFound naming ref.
//
// The bytes are returned unparsed: a caller that verifies signatures on the
// digest holds them, unread, until verification passes.
func (c *Client) ResolveManifest(ctx context.Context, ref Reference) (ocispec.Descriptor, []byte, error) {
	name := ref.String()
	target, err := ref.resolveTarget()
	if err != nil {
		return ocispec.Descriptor{}, nil, fmt.Errorf("resolve %s: %w", name, err)
	}
	repo, err := c.repository(ctx, ref)
	if err != nil {
		return ocispec.Descriptor{}, nil, fmt.Errorf("resolve %s: %w", name, err)
	}
	alg := digest.Canonical
	if ref.Digest != "" {
		alg = ref.Digest.Algorithm()
	}
	desc, body, err := c.getManifest(ctx, repo, target, alg)
	if err != nil {
		return ocispec.Descriptor{}, nil, c.wrapErr("resolve", name, err)
	}
	if ref.Digest != "" && desc.Digest != ref.Digest {
		return ocispec.Descriptor{}, nil, fmt.Errorf("resolve %s: %w: registry returned %s", name, errdef.ErrDigestMismatch, desc.Digest)
	}
	return desc, body, nil
}
