package push_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/push"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sbom"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// mirror resolves every image in a local registry under the same
// repository path: the test's stand-in for docker.io and registry.k8s.io.
type mirror struct {
	c    *registry.Client
	host string
}

func (m mirror) Resolve(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, error) {
	ref.Registry = m.host
	return m.c.Resolve(ctx, ref)
}

// pushImage stores a small image manifest at ref and returns its digest.
func pushImage(t *testing.T, c *registry.Client, ref registry.Reference) digest.Digest {
	t.Helper()
	ctx := context.Background()
	store := memory.New()
	put := func(mt string, b []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(b), Size: int64(len(b))}
		if err := store.Push(ctx, d, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: put(ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux"}`)),
		Layers: []ocispec.Descriptor{put(ocispec.MediaTypeImageLayerGzip, []byte(ref.String()))}}
	m.SchemaVersion = 2
	raw, _ := json.Marshal(m)
	root := put(ocispec.MediaTypeImageManifest, raw)
	if _, err := c.Push(ctx, store, root, ref); err != nil {
		t.Fatal(err)
	}
	return root.Digest
}

// TestPushSBOM: with SBOM options, every example add-on is pushed with a
// signed CycloneDX attestation that lists each of its images — tags
// resolved in the local registry to the digest stored there, pinned
// digests as they are — and every file of its package; a policy requiring
// an SBOM passes, and fails (exit code 9's error) for an add-on pushed
// without one.
func TestPushSBOM(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	signer, _, pub := testkey.New(t)
	pol, err := verify.PolicyFromKeys(ctx, []string{pub}, verify.KeyOptions{Provenance: verify.ProvenanceRules{PredicateTypes: []string{"sbom"}}})
	if err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Glob("../../examples/*/addon.yaml")
	if len(examples) < 4 {
		t.Fatalf("found %d example add-ons", len(examples))
	}
	for _, file := range examples {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			b, err := build.Build(ctx, dir, memory.New(), build.Options{})
			if err != nil {
				t.Fatal(err)
			}
			a, declared := b.Addon, b.Addon.Spec.Images // spec.images as built (derived when not listed)
			tagged := map[string]digest.Digest{}
			for _, img := range declared {
				if ir, _ := registry.ParseImageReference(img); ir.Digest == "" {
					ir.Registry = reg.Host()
					tagged[img] = pushImage(t, c, ir)
				}
			}
			ref, _ := registry.ParseReference(reg.Host() + "/addons/" + a.Metadata.Name + ":" + a.Spec.Version)
			res, err := push.Push(ctx, c, dir, ref, push.Options{Sign: &push.SignOptions{Signer: signer,
				SBOM: &push.SBOMOptions{Resolver: mirror{c, reg.Host()}}}})
			if err != nil {
				t.Fatal(err)
			}
			v, err := verify.Verify(ctx, verify.Target{Client: c, Ref: ref}, res.Manifest, pol)
			if err != nil {
				t.Fatalf("verify requiring an SBOM: %v", err)
			}
			sum, err := sbom.Read(v.Predicate("sbom"))
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Images) != len(declared) {
				t.Fatalf("SBOM lists %d images, the add-on declares %d: %+v", len(sum.Images), len(declared), sum.Images)
			}
			for i, img := range sum.Images {
				if img.Reference != declared[i] {
					t.Errorf("image %d: %s, want %s", i, img.Reference, declared[i])
				}
				want := sbom.Image{Reference: declared[i], Status: sbom.ImageResolved, Digest: tagged[declared[i]]}
				if ir, _ := registry.ParseImageReference(declared[i]); ir.Digest != "" {
					want.Status, want.Digest = sbom.ImagePinned, ir.Digest
				}
				if img != want {
					t.Errorf("image %+v, want %+v", img, want)
				}
			}
			if sum.Files == 0 {
				t.Error("SBOM lists no files")
			}
		})
	}
	// Without an SBOM, the policy fails.
	bare, _ := registry.ParseReference(reg.Host() + "/bare/hello:0.1.0")
	res, err := push.Push(ctx, c, hello, bare, push.Options{Sign: &push.SignOptions{Signer: signer}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Verify(ctx, verify.Target{Client: c, Ref: bare}, res.Manifest, pol); !errors.Is(err, verify.ErrVerification) {
		t.Errorf("no SBOM: err = %v, want ErrVerification", err)
	}
}

// failingResolver resolves nothing: an image registry that does not answer.
type failingResolver struct{}

func (failingResolver) Resolve(_ context.Context, ref registry.Reference) (ocispec.Descriptor, error) {
	return ocispec.Descriptor{}, fmt.Errorf("%s: %w", ref, registry.ErrUnreachable)
}

// TestPushSBOMUnresolvedImage: an image of spec.images that cannot be
// resolved fails a push with an SBOM before anything is written (no PUT,
// no tag), naming the image; with AllowUnresolved the push goes through
// and the result lists the image, recorded unresolved.
func TestPushSBOMUnresolvedImage(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	signer, _, _ := testkey.New(t)
	ref, _ := registry.ParseReference(reg.Host() + "/addons/hello:0.1.0")
	so := &push.SBOMOptions{Resolver: failingResolver{}}
	reg.ResetLog()
	_, err = push.Push(ctx, c, hello, ref, push.Options{Sign: &push.SignOptions{Signer: signer, SBOM: so}})
	if !errors.Is(err, push.ErrUnresolvedImage) || errdef.ClassOf(err) != errdef.ErrInvalid || !strings.Contains(err.Error(), "docker.io/hashicorp/http-echo:1.0.0") || !strings.Contains(err.Error(), "--sbom-allow-unresolved") {
		t.Fatalf("err = %v, want ErrUnresolvedImage naming the image", err)
	}
	for _, r := range reg.Log() {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			t.Errorf("a refused push wrote: %s %s", r.Method, r.Path)
		}
	}
	so.AllowUnresolved = true
	res, err := push.Push(ctx, c, hello, ref, push.Options{Sign: &push.SignOptions{Signer: signer, SBOM: so}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.UnresolvedImages) != 1 || res.UnresolvedImages[0].Reference != "docker.io/hashicorp/http-echo:1.0.0" || res.UnresolvedImages[0].Status != sbom.ImageUnresolved || res.UnresolvedImages[0].Error == "" {
		t.Fatalf("unresolved images: %+v", res.UnresolvedImages)
	}
}

func TestCheckSBOMFlags(t *testing.T) {
	for _, tc := range []struct {
		sbom, unresolved, signs bool
		want                    string
	}{
		{false, false, false, ""},
		{true, false, true, ""},
		{true, true, true, ""},
		{true, false, false, "--sbom needs --key or --keyless: the SBOM is a signed attestation"},
		{false, true, true, "--sbom-allow-unresolved goes with --sbom"},
	} {
		err := push.CheckSBOMFlags(tc.sbom, tc.unresolved, tc.signs)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want || !errors.Is(err, errdef.ErrUsage)) {
			t.Errorf("%+v: %v, want %q", tc, err, tc.want)
		}
	}
}
