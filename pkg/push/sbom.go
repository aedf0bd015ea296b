package push

import (
	"context"
	"fmt"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sbom"
	"github.com/addonpack/addonpack/pkg/spec"
)

// SBOMOptions make Push attach an SBOM attestation (pkg/sbom) beside the
// provenance.
type SBOMOptions struct {
	// Resolver resolves the tags of spec.images to digests; nil uses the
	// push's registry client (same credentials and TLS settings).
	Resolver sbom.Resolver
	// ResolveTimeout bounds all image lookups together (0:
	// sbom.DefaultResolveTimeout); images not resolved by then are listed
	// as unresolved.
	ResolveTimeout time.Duration
	// ToolVersion is recorded as the generator's version.
	ToolVersion string
}

// makeSBOM returns the CycloneDX document of the artifact o pushed to ref:
// spec.images from the config blob, resolved, and the files of its layer.
func makeSBOM(ctx context.Context, c *registry.Client, ref registry.Reference, o *opened, so *SBOMOptions) ([]byte, error) {
	m, err := manifestOf(ctx, o)
	if err != nil {
		return nil, err
	}
	cfgRaw, err := content.FetchAll(ctx, o.store, m.Config)
	if err != nil {
		return nil, fmt.Errorf("sbom of %s: config %s: %w", o.root.Digest, m.Config.Digest, err)
	}
	cfg, err := spec.ParseConfigBlob(cfgRaw, "config blob "+m.Config.Digest.String())
	if err != nil {
		return nil, err
	}
	if len(m.Layers) != 1 {
		return nil, fmt.Errorf("sbom of %s: %d layers, want 1", o.root.Digest, len(m.Layers))
	}
	files, err := layerFiles(ctx, o.store, m.Layers[0])
	if err != nil {
		return nil, fmt.Errorf("sbom of %s: layer %s: %w", o.root.Digest, m.Layers[0].Digest, err)
	}
	var r sbom.Resolver = c
	if so.Resolver != nil {
		r = so.Resolver
	}
	return sbom.Document(sbom.Input{
		Name: cfg.Addon.Metadata.Name, Version: cfg.Addon.Spec.Version,
		Repository: ref.Repo(), Digest: o.root.Digest,
		Images: sbom.ResolveImages(ctx, r, cfg.Addon.Spec.Images, so.ResolveTimeout),
		Files:  files, Tool: "addonpack", ToolVersion: so.ToolVersion,
	})
}

// layerFiles lists the package tree's files of layer with their digests.
func layerFiles(ctx context.Context, store content.ReadOnlyStorage, layer ocispec.Descriptor) ([]archive.FileDigest, error) {
	rc, err := store.Fetch(ctx, layer)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return archive.Digests(ctx, rc, layer.Size, archive.DefaultLimits())
}
