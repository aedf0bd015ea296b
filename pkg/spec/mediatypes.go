package spec

import ocispec "github.com/opencontainers/image-spec/specs-go/v1"

// Source format identifiers (addon.yaml).
const (
	APIVersion = "addonpack.dev/v1alpha1"
	Kind       = "Addon"
	// FileName is the add-on manifest at the root of every package.
	FileName = "addon.yaml"
)

// Artifact media types (specs/artifact.md).
const (
	// ArtifactType is the manifest's artifactType.
	ArtifactType = "application/vnd.addonpack.addon.v1"
	// ConfigMediaType is the config blob: the resolved addon.yaml as JSON.
	ConfigMediaType = "application/vnd.addonpack.addon.config.v1+json"
	// ContentMediaType is the first and only tar layer: the package tree.
	// It is the standard OCI layer type so that Flux, Argo CD, oras, crane
	// and tar can read it.
	ContentMediaType = ocispec.MediaTypeImageLayerGzip
	// SchemaMediaType is the component-config schema as canonical JSON.
	SchemaMediaType = "application/vnd.addonpack.config.schema.v1+json"
	// ManifestMediaType is the only manifest media type addonpack writes.
	ManifestMediaType = ocispec.MediaTypeImageManifest
)

// Layer titles (org.opencontainers.image.title on each layer), used by
// `oras pull` as file names.
const (
	ContentTitle = "package.tar.gz"
	SchemaTitle  = "config.schema.json"
)

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
