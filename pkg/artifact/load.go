package artifact

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/spec"
)

// Loaded is an artifact whose manifest and config have been fetched by
// digest, checked and parsed. No content layer has been read.
type Loaded struct {
	// Ref names the artifact by digest.
	Ref string
	// Descriptor is the resolved manifest descriptor.
	Descriptor ocispec.Descriptor
	// ManifestJSON is the manifest exactly as stored.
	ManifestJSON []byte
	*spec.Artifact
	// Addon is the resolved addon.yaml from the config blob.
	Addon *spec.Addon
	// Schema is the canonical component-config schema from the config
	// blob; nil when the add-on declares no config type.
	Schema []byte
}

// Load resolves src once and fetches and checks the manifest and config.
func Load(ctx context.Context, src Source) (*Loaded, error) {
	desc, err := src.Resolve(ctx)
	if err != nil {
		return nil, err
	}
	return LoadDigest(ctx, src, desc)
}

// LoadDigest fetches and checks the manifest and config of desc, which the
// caller resolved (and may have verified) already.
func LoadDigest(ctx context.Context, src Source, desc ocispec.Descriptor) (*Loaded, error) {
	ref := src.Pinned(desc)
	if desc.MediaType != "" && desc.MediaType != spec.ManifestMediaType {
		return nil, fmt.Errorf("%s: media type %q is not an OCI image manifest: %w", ref, desc.MediaType, spec.ErrInvalid)
	}
	raw, err := src.FetchManifest(ctx, desc)
	if err != nil {
		return nil, err
	}
	a, err := spec.ParseManifest(raw, ref)
	if err != nil {
		return nil, err
	}
	cfg, err := src.FetchBlobBytes(ctx, a.Config, spec.MaxDocumentSize)
	if err != nil {
		return nil, fmt.Errorf("%s: config %s: %w", ref, a.Config.Digest, err)
	}
	blob, err := spec.ParseConfigBlob(cfg, ref+" config")
	if err != nil {
		return nil, err
	}
	return &Loaded{Ref: ref, Descriptor: desc, ManifestJSON: raw, Artifact: a, Addon: &blob.Addon, Schema: blob.Schema}, nil
}
