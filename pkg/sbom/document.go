package sbom

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

// PredicateType is the in-toto predicate type of a CycloneDX document, as
// cosign writes it (`cosign attest --type cyclonedx`) and
// `cosign verify-attestation --type cyclonedx` expects.
const PredicateType = "https://cyclonedx.org/bom"

// Property names carried by image components.
const (
	PropertyReference = "addonpack:image:reference" // the image as spec.images lists it
	PropertyStatus    = "addonpack:image:status"    // pinned, resolved or unresolved
	PropertyError     = "addonpack:image:error"     // why an image is unresolved
)

// ErrDocument reports an SBOM that cannot be made or read.
var ErrDocument = errdef.New(errdef.ErrInvalid, "invalid SBOM")

// Input is what the document describes.
type Input struct {
	// Name and Version are the add-on's (metadata.name, spec.version).
	Name, Version string
	// Repository ("registry/repository") and Digest name the artifact.
	Repository string
	Digest     digest.Digest
	Images     []Image
	Files      []archive.FileDigest
	// Timestamp is when the document is made (zero: now).
	Timestamp time.Time
	// Tool names the generator, e.g. "addonpack" and its version.
	Tool, ToolVersion string
}

// Document returns in as CycloneDX 1.6 JSON.
func Document(in Input) ([]byte, error) {
	if err := in.Digest.Validate(); err != nil {
		return nil, fmt.Errorf("%w: artifact digest %q: %w", ErrDocument, in.Digest, err)
	}
	ts := in.Timestamp
	if ts.IsZero() {
		ts = time.Now()
	}
	addon := cdx.Component{
		BOMRef: "addon", Type: cdx.ComponentTypeApplication, Name: in.Name, Version: in.Version,
		PackageURL: purl(in.Repository, in.Digest, ""),
		Hashes:     &[]cdx.Hash{hash(in.Digest)},
	}
	var comps []cdx.Component
	var imageRefs []string
	for i, img := range in.Images {
		c, err := imageComponent(i, img)
		if err != nil {
			return nil, err
		}
		comps = append(comps, c)
		imageRefs = append(imageRefs, c.BOMRef)
	}
	for _, f := range in.Files {
		comps = append(comps, cdx.Component{BOMRef: "file:" + f.Path, Type: cdx.ComponentTypeFile, Name: f.Path,
			Hashes: &[]cdx.Hash{hash(f.Digest)}})
	}
	bom := cdx.NewBOM()
	bom.Metadata = &cdx.Metadata{
		Timestamp: ts.UTC().Format(time.RFC3339),
		Component: &addon,
	}
	if in.Tool != "" {
		bom.Metadata.Tools = &cdx.ToolsChoice{Components: &[]cdx.Component{{Type: cdx.ComponentTypeApplication, Name: in.Tool, Version: in.ToolVersion}}}
	}
	bom.Components = &comps
	bom.Dependencies = &[]cdx.Dependency{{Ref: "addon", Dependencies: &imageRefs}}
	var buf bytes.Buffer
	enc := cdx.NewBOMEncoder(&buf, cdx.BOMFileFormatJSON)
	enc.SetEscapeHTML(false)
	if err := enc.EncodeVersion(bom, cdx.SpecVersion1_6); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDocument, err)
	}
	return buf.Bytes(), nil
}

func imageComponent(i int, img Image) (cdx.Component, error) {
	c := cdx.Component{BOMRef: fmt.Sprintf("image:%d", i), Type: cdx.ComponentTypeContainer, Name: img.Reference}
	props := []cdx.Property{{Name: PropertyReference, Value: img.Reference}, {Name: PropertyStatus, Value: img.Status}}
	if ref, err := registry.ParseImageReference(img.Reference); err == nil {
		c.Name, c.Version = ref.Repo(), ref.Tag
		if img.Digest != "" {
			c.PackageURL = purl(ref.Repo(), img.Digest, ref.Tag)
		}
	}
	if img.Digest != "" {
		if err := img.Digest.Validate(); err != nil {
			return c, fmt.Errorf("%w: image %s: digest %q: %w", ErrDocument, img.Reference, img.Digest, err)
		}
		c.Hashes = &[]cdx.Hash{hash(img.Digest)}
	}
	if img.Error != "" {
		props = append(props, cdx.Property{Name: PropertyError, Value: img.Error})
	}
	c.Properties = &props
	return c, nil
}

// purl is the package URL of an OCI artifact (purl-spec "oci" type).
func purl(repo string, d digest.Digest, tag string) string {
	q := url.Values{}
	if repo != "" {
		q.Set("repository_url", repo)
	}
	if tag != "" {
		q.Set("tag", tag)
	}
	s := "pkg:oci/" + strings.ToLower(path.Base(repo)) + "@" + strings.Replace(d.String(), ":", "%3A", 1)
	if len(q) > 0 {
		s += "?" + q.Encode()
	}
	return s
}

func hash(d digest.Digest) cdx.Hash {
	alg := cdx.HashAlgoSHA256
	if d.Algorithm() == digest.SHA512 {
		alg = cdx.HashAlgoSHA512
	}
	return cdx.Hash{Algorithm: alg, Value: d.Encoded()}
}
