package sign

import (
	"context"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/addonpack/addonpack/pkg/registry"
)

// MergeClassic points tag (a cosign sha256-<hex>.sig or .att tag) of t's
// repository at the union of the layers of the cosign image it names now
// and of incoming, a cosign image already stored in the repository by
// digest. A copy thus adds signatures to a mirror and never drops those it
// holds: a source that carries other signatures (or none valid) cannot make
// the mirror's release stop verifying. With no image at tag, tag is set to
// incoming as it is (read from src); when incoming adds no layer, nothing
// is written. merged reports whether a new image was written.
func MergeClassic(ctx context.Context, t Target, tag string, incoming ocispec.Descriptor, src content.ReadOnlyStorage) (merged bool, err error) {
	ref := t.Ref
	ref.Tag, ref.Digest = tag, ""
	cur, err := t.Client.Resolve(ctx, ref)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		_, err := t.Client.Push(ctx, src, incoming, ref)
		return false, err
	case err != nil:
		return false, err
	case cur.Digest == incoming.Digest:
		return false, nil
	}
	existing, err := readLayers(ctx, t, ref, cur)
	if err != nil {
		return false, err
	}
	added, err := readLayers(ctx, t, t.Ref.WithDigest(incoming.Digest), incoming)
	if err != nil {
		return false, err
	}
	have := map[string]bool{}
	for _, s := range existing {
		d, err := s.Digest()
		if err != nil {
			return false, err
		}
		have[d.String()] = true
	}
	all := existing
	for _, s := range added {
		d, err := s.Digest()
		if err != nil {
			return false, err
		}
		if !have[d.String()] {
			have[d.String()] = true
			all = append(all, s)
		}
	}
	if len(all) == len(existing) {
		return false, nil
	}
	if len(all) > maxExisting {
		return false, fmt.Errorf("%w: %s: merging would hold %d layers, more than %d", ErrSign, ref, len(all), maxExisting)
	}
	return true, writeImage(ctx, t, tag, all)
}
