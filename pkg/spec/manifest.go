package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// MaxManifestSize caps an addonpack manifest (4 MiB, the common registry limit).
const MaxManifestSize = 4 << 20

// Artifact is a parsed and checked addonpack manifest.
type Artifact struct {
	Manifest ocispec.Manifest
	Config   ocispec.Descriptor // the ConfigBlob
	Content  ocispec.Descriptor // layers[0]: the package tree, tar+gzip
}

// NewManifest assembles the manifest of an add-on artifact: one config blob
// and exactly one layer, the package tree.
func NewManifest(config, content ocispec.Descriptor, annotations map[string]string) ocispec.Manifest {
	return ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ManifestMediaType,
		ArtifactType: ArtifactType,
		Config:       config,
		Layers:       []ocispec.Descriptor{content},
		Annotations:  annotations,
	}
}

// configMediaTypes are the config media types this version reads.
var configMediaTypes = []string{ConfigMediaType, ConfigMediaTypeV2}

// ParseManifest decodes and checks an addonpack manifest. ref names it in errors.
func ParseManifest(data []byte, ref string) (*Artifact, error) {
	return parseManifest(data, ref, configMediaTypes)
}

// parseManifest checks the manifest, accepting the config media types
// configTypes (a consumer of the first format version knew only
// ConfigMediaType: manifest_test runs that path on a v2 manifest).
func parseManifest(data []byte, ref string, configTypes []string) (*Artifact, error) {
	file := ref + " manifest"
	bad := func(field, format string, args ...any) error {
		return &FieldError{File: file, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxManifestSize {
		return nil, bad("", "is %d bytes, more than the limit of %d", len(data), MaxManifestSize)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, bad("", "not valid JSON: %v", err)
	}
	if m.SchemaVersion != 2 {
		return nil, bad("schemaVersion", "is %d, want 2", m.SchemaVersion)
	}
	if m.MediaType != ManifestMediaType {
		return nil, bad("mediaType", "is %q, want %q", m.MediaType, ManifestMediaType)
	}
	if m.ArtifactType != ArtifactType {
		return nil, bad("artifactType", "is %q, want %q: not an addonpack artifact", m.ArtifactType, ArtifactType)
	}
	if !slices.Contains(configTypes, m.Config.MediaType) {
		return nil, bad("config.mediaType", "is %q, want %s", m.Config.MediaType, quoteOr(configTypes))
	}
	if err := checkDescriptor(m.Config, "config", bad); err != nil {
		return nil, err
	}
	if len(m.Layers) == 0 {
		return nil, bad("layers", "is empty: the content layer is missing")
	}
	a := &Artifact{Manifest: m, Config: m.Config, Content: m.Layers[0]}
	if m.Layers[0].MediaType != ContentMediaType {
		return nil, bad("layers[0].mediaType", "is %q, want the content layer %q", m.Layers[0].MediaType, ContentMediaType)
	}
	for i, l := range m.Layers {
		field := fmt.Sprintf("layers[%d]", i)
		if err := checkDescriptor(l, field, bad); err != nil {
			return nil, err
		}
		if i > 0 && isTarMediaType(l.MediaType) {
			return nil, bad(field+".mediaType", "is %q: only layers[0] may be a tar layer", l.MediaType)
		}
		// Other non-tar layers are ignored, for forward compatibility;
		// addonpack itself never writes them (Argo CD refuses them).
	}
	return a, nil
}

func checkDescriptor(d ocispec.Descriptor, field string, bad func(string, string, ...any) error) error {
	if err := d.Digest.Validate(); err != nil {
		return bad(field+".digest", "%q is not a valid digest: %v", d.Digest, err)
	}
	if d.Digest.Algorithm() != digest.SHA256 && d.Digest.Algorithm() != digest.SHA512 {
		return bad(field+".digest", "algorithm %q is not supported", d.Digest.Algorithm())
	}
	if d.Size < 0 {
		return bad(field+".size", "is negative")
	}
	return nil
}

// quoteOr renders ["a", "b"] as `"a" or "b"`.
func quoteOr(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, " or ")
}

func isTarMediaType(mt string) bool {
	base, _, _ := strings.Cut(mt, "+")
	return strings.HasSuffix(base, ".tar") || strings.HasSuffix(base, "tar") || strings.Contains(mt, ".tar+")
}
