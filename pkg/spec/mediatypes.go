package spec

import ocispec "github.com/opencontainers/image-spec/specs-go/v1"

// Source format identifiers (addon.yaml).
const (
	// APIVersion is the first source version, the one `addonpack init`
	// writes: still read and written unchanged.
	APIVersion = "addonpack.dev/v1alpha1"
	// APIVersionV1Alpha2 adds config conversion (spec.config.conversion)
	// and profiles; its artifacts carry a ConfigMediaTypeV2 blob.
	APIVersionV1Alpha2 = "addonpack.dev/v1alpha2"
	Kind               = "Addon"
	// FileName is the add-on manifest at the root of every package.
	FileName = "addon.yaml"
)

// Artifact media types (specs/artifact.md).
const (
	// ArtifactType is the manifest's artifactType.
	ArtifactType = "application/vnd.addonpack.addon.v1"
	// ConfigMediaType is the config blob (ConfigBlob): the resolved
	// addon.yaml and the component-config schema, as JSON.
	ConfigMediaType = "application/vnd.addonpack.addon.config.v1+json"
	// ConfigMediaTypeV2 is the config blob of an addonpack.dev/v1alpha2
	// add-on: ConfigMediaType's members plus "conversion" (the schemas of
	// the older config versions). Consumers of v1 refuse it by media type.
	ConfigMediaTypeV2 = "application/vnd.addonpack.addon.config.v2+json"
	// ContentMediaType is the one and only layer: the package tree. It is
	// the standard OCI layer type, and the manifest has no other layer,
	// because Argo CD refuses manifests with more than one layer and Flux
	// takes the first; oras, crane and tar read it as it is.
	ContentMediaType = ocispec.MediaTypeImageLayerGzip
	// ManifestMediaType is the only manifest media type addonpack writes.
	ManifestMediaType = ocispec.MediaTypeImageManifest
)

// ContentTitle is the layer's org.opencontainers.image.title, the file name
// `oras pull` saves it as.
const ContentTitle = "package.tar.gz"

// Annotation keys written on the manifest.
const (
	AnnotationTitle       = ocispec.AnnotationTitle
	AnnotationVersion     = ocispec.AnnotationVersion
	AnnotationDescription = ocispec.AnnotationDescription
	AnnotationSource      = ocispec.AnnotationSource
	AnnotationRevision    = ocispec.AnnotationRevision
	AnnotationCreated     = ocispec.AnnotationCreated
	AnnotationLicenses    = ocispec.AnnotationLicenses
	AnnotationURL         = ocispec.AnnotationURL
	// AnnotationConfigType names the component-config type, "apiVersion/kind"
	// ("coredns.addons.example.com/v1alpha1/CoreDNSConfig"), so that tools can
	// see it without fetching a blob.
	AnnotationConfigType = "dev.addonpack.config.type"
)
