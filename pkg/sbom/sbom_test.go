package sbom

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/registry"
)

const (
	dA = digest.Digest("sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae")
	dB = digest.Digest("sha256:fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9")
)

// fakeResolver answers from a map; "slow" images block until ctx ends.
type fakeResolver map[string]digest.Digest

func (f fakeResolver) Resolve(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, error) {
	if strings.Contains(ref.Repository, "slow") {
		<-ctx.Done()
		return ocispec.Descriptor{}, ctx.Err()
	}
	d, ok := f[ref.String()]
	if !ok {
		return ocispec.Descriptor{}, registry.ErrNotFound
	}
	return ocispec.Descriptor{Digest: d}, nil
}

func TestResolveImages(t *testing.T) {
	r := fakeResolver{"index.docker.io/hashicorp/http-echo:1.0.0": dA}
	images := []string{"hashicorp/http-echo:1.0.0", "ghcr.io/o/pinned:v1@" + string(dB), "ghcr.io/o/missing:v1", "ghcr.io/o/slow:v1", "Not A Ref"}
	start := time.Now()
	got := ResolveImages(context.Background(), r, images, 200*time.Millisecond)
	if time.Since(start) > 5*time.Second {
		t.Errorf("lookups took %v, bound 200ms", time.Since(start))
	}
	want := []struct {
		status string
		digest digest.Digest
	}{{ImageResolved, dA}, {ImagePinned, dB}, {ImageUnresolved, ""}, {ImageUnresolved, ""}, {ImageUnresolved, ""}}
	for i, w := range want {
		if got[i].Reference != images[i] || got[i].Status != w.status || got[i].Digest != w.digest {
			t.Errorf("%s: %+v, want %s %s", images[i], got[i], w.status, w.digest)
		}
		if w.status == ImageUnresolved && got[i].Error == "" {
			t.Errorf("%s: unresolved without a reason", images[i])
		}
	}
	if none := ResolveImages(context.Background(), nil, images[:1], 0); none[0].Status != ImageUnresolved {
		t.Errorf("nil resolver: %+v", none)
	}
}

func TestDocumentRoundTrip(t *testing.T) {
	images := []Image{
		{Reference: "hashicorp/http-echo:1.0.0", Digest: dA, Status: ImageResolved},
		{Reference: "ghcr.io/o/pinned@" + string(dB), Digest: dB, Status: ImagePinned},
		{Reference: "ghcr.io/o/missing:v1", Status: ImageUnresolved, Error: "not found"},
	}
	files := []archive.FileDigest{{Path: "addon.yaml", Size: 3, Digest: dA}, {Path: "config/schema.yaml", Size: 4, Digest: dB}}
	doc, err := Document(Input{Name: "hello", Version: "0.1.0", Repository: "localhost:5000/addons/hello", Digest: dA,
		Images: images, Files: files, Tool: "addonpack", ToolVersion: "test", Timestamp: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(doc, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["bomFormat"] != "CycloneDX" || raw["specVersion"] != "1.6" {
		t.Errorf("bomFormat %v specVersion %v", raw["bomFormat"], raw["specVersion"])
	}
	for _, s := range []string{`"pkg:oci/hello@sha256%3A` + dA.Encoded() + `?repository_url=localhost%3A5000%2Faddons%2Fhello"`,
		`"pkg:oci/http-echo@sha256%3A` + dA.Encoded(), `"name":"config/schema.yaml"`, `"timestamp":"1970-01-01T00:00:00Z"`} {
		if !strings.Contains(string(doc), s) {
			t.Errorf("document lacks %s:\n%s", s, doc)
		}
	}
	sum, err := Read(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Images, images) || sum.Files != 2 {
		t.Errorf("read back %+v, want %+v and 2 files", sum, images)
	}
	if _, err := Document(Input{Digest: "sha256:short"}); !errors.Is(err, ErrDocument) {
		t.Errorf("bad digest: %v", err)
	}
	if _, err := Read([]byte(`{"components": 3}`)); !errors.Is(err, ErrDocument) {
		t.Errorf("bad document: %v", err)
	}
}

// FuzzRead: any input is read or refused with ErrDocument, and every digest
// read back is valid.
func FuzzRead(f *testing.F) {
	doc, _ := Document(Input{Name: "x", Digest: dA, Images: []Image{{Reference: "a:1", Digest: dB, Status: ImageResolved}},
		Files: []archive.FileDigest{{Path: "f", Digest: dA}}})
	f.Add(doc)
	f.Add([]byte(`{"components":[{"type":"container","name":"x","hashes":[{"alg":"SHA-256","content":"zz"}]}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Read(b)
		if err != nil {
			if !errors.Is(err, ErrDocument) {
				t.Fatalf("error without ErrDocument: %v", err)
			}
			return
		}
		for _, img := range s.Images {
			if img.Digest != "" && img.Digest.Validate() != nil {
				t.Fatalf("invalid digest %q read", img.Digest)
			}
		}
	})
}
