package relocate

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// bind loads the artifact root of src (manifest and config, by digest) and
// checks that every reference in refs names it (verify.Claim, with
// opts.Name and the policy's names): the source a consumer reads and the
// destination consumers will read. A copy consumers of the destination
// would refuse is refused before anything is written.
func bind(ctx context.Context, src artifact.Source, root ocispec.Descriptor, opts Options, refs ...registry.Reference) (*artifact.Loaded, error) {
	l, err := artifact.LoadDigest(ctx, src, root)
	if err != nil {
		return nil, err
	}
	for _, ref := range refs {
		if err := verify.Claim(ref, opts.Name, opts.Policy).Check(ref.String(), l.Addon, l.Manifest.Annotations); err != nil {
			return nil, fmt.Errorf("copy %s: %w", src.Pinned(root), err)
		}
	}
	return l, nil
}

// destination is dst with the tag a copy sets: dst's own, else tag.
func destination(dst registry.Reference, tag string) registry.Reference {
	if dst.Tag == "" {
		dst.Tag = tag
	}
	return dst
}
