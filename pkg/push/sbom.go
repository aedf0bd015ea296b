package push

import (
	"context"
	"fmt"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sbom"
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
	// AllowUnresolved records images that could not be resolved as
	// unresolved (Result.UnresolvedImages lists them) instead of failing
	// the push with ErrUnresolvedImage.
	AllowUnresolved bool
}

// ErrUnresolvedImage is matched when an image of spec.images cannot be
// resolved to a digest for the SBOM and SBOMOptions.AllowUnresolved is off:
// an SBOM that lists an image without its digest says less than it seems.
var ErrUnresolvedImage = errdef.New(errdef.ErrInvalid, "image not resolved for the SBOM")

// resolveImages resolves spec.images before anything is uploaded, so that a
// push that would fail on them writes nothing. It returns the images and
// those left unresolved (allowed by so.AllowUnresolved).
func resolveImages(ctx context.Context, c *registry.Client, o *opened, so *SBOMOptions) ([]sbom.Image, []sbom.Image, error) {
	var r sbom.Resolver = c
	if so.Resolver != nil {
		r = so.Resolver
	}
	images := sbom.ResolveImages(ctx, r, o.addon.Spec.Images, so.ResolveTimeout)
	var unresolved []sbom.Image
	var names []string
	for _, img := range images {
		if img.Status == sbom.ImageUnresolved {
			unresolved = append(unresolved, img)
			names = append(names, fmt.Sprintf("%s (%s)", img.Reference, img.Error))
		}
	}
	if len(unresolved) > 0 && !so.AllowUnresolved {
		return nil, nil, fmt.Errorf("sbom of %s: %w: %s; nothing was pushed (pass --sbom-allow-unresolved to record them as unresolved)",
			o.addon.Metadata.Name, ErrUnresolvedImage, strings.Join(names, ", "))
	}
	return images, unresolved, nil
}

// makeSBOM returns the CycloneDX document of the artifact o pushed to ref:
// spec.images, resolved before the push (images), and the files of its
// layer.
func makeSBOM(ctx context.Context, ref registry.Reference, o *opened, images []sbom.Image, so *SBOMOptions) ([]byte, error) {
	m, err := manifestOf(ctx, o)
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
	return sbom.Document(sbom.Input{
		Name: o.addon.Metadata.Name, Version: o.addon.Spec.Version,
		Repository: ref.Repo(), Digest: o.root.Digest,
		Images: images, Files: files, Tool: "addonpack", ToolVersion: so.ToolVersion,
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

// CheckSBOMFlags refuses an SBOM on a push that does not sign (the SBOM is
// a signed attestation) and allowUnresolved without an SBOM
// (errdef.ErrUsage).
func CheckSBOMFlags(withSBOM, allowUnresolved, signs bool) error {
	if withSBOM && !signs {
		return errdef.Usagef("--sbom needs --key or --keyless: the SBOM is a signed attestation")
	}
	if allowUnresolved && !withSBOM {
		return errdef.Usagef("--sbom-allow-unresolved goes with --sbom")
	}
	return nil
}
