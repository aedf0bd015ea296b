package artifact

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Loaded is an artifact whose manifest and config have been fetched by
// digest, checked and parsed. No content layer has been read.
type Loaded struct {
	*LoadedManifest
	// Addon is the resolved addon.yaml from the config blob.
	Addon *spec.Addon
	// Schema is the canonical component-config schema from the config
	// blob; nil when the add-on declares no config type.
	Schema []byte
	// Conversion holds the schemas of the older config versions
	// (addonpack.dev/v1alpha2); nil when the add-on converts none.
	Conversion *spec.ConversionBlob
}

// LoadedManifest is an artifact whose manifest has been fetched by digest,
// checked and parsed; its config has not been fetched yet.
type LoadedManifest struct {
	// Ref names the artifact by digest.
	Ref string
	// Descriptor is the resolved manifest descriptor.
	Descriptor ocispec.Descriptor
	// ManifestJSON is the manifest exactly as stored.
	ManifestJSON []byte
	*spec.Artifact
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
	m, err := LoadManifest(ctx, src, desc, nil)
	if err != nil {
		return nil, err
	}
	return m.LoadConfig(ctx, src)
}

// LoadManifest checks and parses the manifest of desc. raw, when not nil,
// holds the manifest bytes received while resolving (ManifestResolver): they
// are checked against desc (size and digest) and used instead of a second
// request. Otherwise the manifest is fetched by digest.
func LoadManifest(ctx context.Context, src Source, desc ocispec.Descriptor, raw []byte) (*LoadedManifest, error) {
	ref := src.Pinned(desc)
	if desc.MediaType != "" && desc.MediaType != spec.ManifestMediaType {
		return nil, fmt.Errorf("%s: media type %q is not an OCI image manifest: %w", ref, desc.MediaType, spec.ErrInvalid)
	}
	if raw != nil {
		if err := checkBytes(raw, desc); err != nil {
			return nil, fmt.Errorf("%s: manifest: %w", ref, err)
		}
	} else {
		var err error
		if raw, err = src.FetchManifest(ctx, desc); err != nil {
			return nil, err
		}
	}
	a, err := spec.ParseManifest(raw, ref)
	if err != nil {
		return nil, err
	}
	return &LoadedManifest{Ref: ref, Descriptor: desc, ManifestJSON: raw, Artifact: a}, nil
}

// LoadConfig fetches the config blob by digest, checks and parses it.
func (m *LoadedManifest) LoadConfig(ctx context.Context, src Source) (*Loaded, error) {
	cfg, err := src.FetchBlobBytes(ctx, m.Config, spec.MaxDocumentSize)
	if err != nil {
		return nil, fmt.Errorf("%s: config %s: %w", m.Ref, m.Config.Digest, err)
	}
	blob, err := spec.ParseConfigBlob(cfg, m.Ref+" config")
	if err != nil {
		return nil, err
	}
	// The media type says which encoding the blob must be: a v1 blob
	// holds a v1alpha1 add-on, a v2 blob a v1alpha2 one.
	if want := blob.MediaType(); m.Config.MediaType != want {
		return nil, fmt.Errorf("%s config: media type %q, but an %s add-on is a %q blob: %w",
			m.Ref, m.Config.MediaType, blob.Addon.APIVersion, want, spec.ErrInvalid)
	}
	return &Loaded{LoadedManifest: m, Addon: &blob.Addon, Schema: blob.Schema, Conversion: blob.Conversion}, nil
}

// checkBytes checks b against desc: exact size, then digest.
func checkBytes(b []byte, desc ocispec.Descriptor) error {
	if int64(len(b)) != desc.Size {
		return fmt.Errorf("%w: %d bytes, expected %d", errdef.ErrSizeMismatch, len(b), desc.Size)
	}
	if err := desc.Digest.Validate(); err != nil {
		return fmt.Errorf("invalid digest %q: %w", desc.Digest, err)
	}
	if got := desc.Digest.Algorithm().FromBytes(b); got != desc.Digest {
		return fmt.Errorf("%w: content is %s", errdef.ErrDigestMismatch, got)
	}
	return nil
}
