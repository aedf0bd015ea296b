package spec_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/spec"
)

func validManifest() ocispec.Manifest {
	d := func(mt, content string) ocispec.Descriptor {
		return ocispec.Descriptor{MediaType: mt, Digest: digest.FromString(content), Size: int64(len(content))}
	}
	return spec.NewManifest(d(spec.ConfigMediaType, "{}"), d(spec.ContentMediaType, "tar"),
		map[string]string{spec.AnnotationTitle: "hello"})
}

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(m *ocispec.Manifest)
		want   string // "" = valid
	}{
		{"valid", func(*ocispec.Manifest) {}, ""},
		{"one layer only", func(m *ocispec.Manifest) {
			if len(m.Layers) != 1 {
				panic("NewManifest must write exactly one layer (Argo CD refuses more)")
			}
		}, ""},
		{"unknown non-tar layer ignored", func(m *ocispec.Manifest) {
			m.Layers = append(m.Layers, ocispec.Descriptor{MediaType: "application/vnd.example.sbom+json", Digest: digest.FromString("x"), Size: 1})
		}, ""},
		{"wrong artifactType", func(m *ocispec.Manifest) { m.ArtifactType = "application/vnd.cncf.helm.config.v1+json" }, "artifactType: is \"application/vnd.cncf.helm.config.v1+json\""},
		{"wrong config type", func(m *ocispec.Manifest) { m.Config.MediaType = "application/json" }, "config.mediaType"},
		{"wrong schemaVersion", func(m *ocispec.Manifest) { m.SchemaVersion = 1 }, "schemaVersion"},
		{"no layers", func(m *ocispec.Manifest) { m.Layers = nil }, "layers: is empty"},
		{"content not first", func(m *ocispec.Manifest) {
			m.Layers = append([]ocispec.Descriptor{{MediaType: "application/json", Digest: digest.FromString("x"), Size: 1}}, m.Layers...)
		}, "layers[0].mediaType"},
		{"second tar layer", func(m *ocispec.Manifest) {
			m.Layers = append(m.Layers, ocispec.Descriptor{MediaType: "application/vnd.oci.image.layer.v1.tar", Digest: digest.FromString("x"), Size: 1})
		}, "layers[1].mediaType"},
		{"bad digest", func(m *ocispec.Manifest) { m.Layers[0].Digest = "sha256:abc" }, "layers[0].digest"},
		{"md5 digest", func(m *ocispec.Manifest) { m.Config.Digest = "md5:d41d8cd98f00b204e9800998ecf8427e" }, "config.digest"},
		{"negative size", func(m *ocispec.Manifest) { m.Layers[0].Size = -1 }, "layers[0].size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validManifest()
			tt.mutate(&m)
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			a, err := spec.ParseManifest(data, "localhost:5000/x@sha256:1")
			if tt.want == "" {
				if err != nil {
					t.Fatalf("valid manifest refused: %v", err)
				}
				if a.Content.MediaType != spec.ContentMediaType || a.Config.MediaType != spec.ConfigMediaType {
					t.Fatalf("parsed %+v", a)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "localhost:5000/x@sha256:1 manifest") {
				t.Fatalf("error %q does not name the reference and %q", err, tt.want)
			}
		})
	}
}

func TestParseManifestNotJSON(t *testing.T) {
	if _, err := spec.ParseManifest([]byte("{"), "r"); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("got %v", err)
	}
}

func FuzzParseManifest(f *testing.F) {
	good, _ := json.Marshal(validManifest())
	f.Add(good)
	f.Add([]byte(`{"schemaVersion":2}`))
	f.Add([]byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.addonpack.addon.v1","layers":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := spec.ParseManifest(data, "r")
		if err != nil {
			return
		}
		if a.Content.MediaType != spec.ContentMediaType || a.Manifest.ArtifactType != spec.ArtifactType {
			t.Fatalf("accepted a manifest that is not an addonpack artifact: %s", data)
		}
	})
}
