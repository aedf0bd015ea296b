package relocate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// maxManifest bounds a manifest read through a snapshot.
const maxManifest = 4 << 20

// snapshot is the source as plan listed it, for verification: cosign tags
// and referrers are answered from the plan's items — never resolved again —
// and content is read by digest from src, checked against its descriptor.
// A copy verifies its snapshot and then writes exactly those items, so a
// source that answers differently the second time (a valid signature to
// the verifier, another to the copy) cannot put unverified signatures into
// the destination.
type snapshot struct {
	src   graphSource
	items []Item
}

var _ verify.Reader = snapshot{}

func (s snapshot) ResolveManifest(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, []byte, error) {
	for _, it := range s.items {
		if it.Kind == KindTag && it.Tag == ref.Tag {
			raw, err := s.read(ctx, it.Descriptor, maxManifest)
			return it.Descriptor, raw, err
		}
	}
	return ocispec.Descriptor{}, nil, fmt.Errorf("%s: %w", ref, registry.ErrNotFound)
}

func (s snapshot) Referrers(ctx context.Context, ref registry.Reference, subject ocispec.Descriptor, artifactType string, max int) ([]ocispec.Descriptor, bool, error) {
	var out []ocispec.Descriptor
	for _, it := range s.items {
		if it.Kind != KindReferrer || it.Subject != subject.Digest {
			continue
		}
		d := it.Descriptor
		if artifactType != "" && d.ArtifactType == "" {
			// A layout's index.json may not carry artifactType: read it.
			raw, err := s.read(ctx, d, maxManifest)
			if err != nil {
				return nil, false, err
			}
			var m ocispec.Manifest
			if json.Unmarshal(raw, &m) == nil {
				d.ArtifactType = m.ArtifactType
				if d.ArtifactType == "" {
					d.ArtifactType = m.Config.MediaType
				}
			}
		}
		if artifactType != "" && d.ArtifactType != artifactType {
			continue
		}
		if len(out) == max {
			return out, true, nil
		}
		out = append(out, d)
	}
	return out, false, nil
}

func (s snapshot) FetchManifest(ctx context.Context, _ registry.Reference, d ocispec.Descriptor) ([]byte, error) {
	return s.read(ctx, d, maxManifest)
}

func (s snapshot) FetchBlobBytes(ctx context.Context, _ registry.Reference, d ocispec.Descriptor, max int64) ([]byte, error) {
	return s.read(ctx, d, max)
}

// read fetches d from src whole, refusing more than max bytes and bytes
// that do not match d's size and digest.
func (s snapshot) read(ctx context.Context, d ocispec.Descriptor, max int64) ([]byte, error) {
	if d.Size > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the limit of %d: %w", d.Digest, d.Size, max, registry.ErrTooLarge)
	}
	rc, err := s.src.Fetch(ctx, d)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	vr := content.NewVerifyReader(rc, d)
	b, err := io.ReadAll(vr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Digest, err)
	}
	if err := vr.Verify(); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", d.Digest, errdef.ErrDigestMismatch, err)
	}
	return b, nil
}
