package relocate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// pushImage pushes a two-platform image index to ref and returns its descriptor.
func pushImage(t *testing.T, c *registry.Client, ref registry.Reference) ocispec.Descriptor {
	t.Helper()
	ctx := context.Background()
	store := memory.New()
	put := func(mt string, v any) ocispec.Descriptor {
		b, ok := v.([]byte)
		if !ok {
			b, _ = json.Marshal(v)
		}
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(b), Size: int64(len(b))}
		if err := store.Push(ctx, d, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	var idx ocispec.Index
	idx.SchemaVersion, idx.MediaType = 2, ocispec.MediaTypeImageIndex
	for _, arch := range []string{"amd64", "arm64"} {
		cfg := put(ocispec.MediaTypeImageConfig, map[string]any{"architecture": arch, "os": "linux", "rootfs": map[string]any{"type": "layers", "diff_ids": []string{}}})
		layer := put(ocispec.MediaTypeImageLayerGzip, []byte("layer for "+arch))
		m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: cfg, Layers: []ocispec.Descriptor{layer}}
		m.SchemaVersion = 2
		md := put(ocispec.MediaTypeImageManifest, m)
		md.Platform = &ocispec.Platform{OS: "linux", Architecture: arch}
		idx.Manifests = append(idx.Manifests, md)
	}
	root := put(ocispec.MediaTypeImageIndex, idx)
	if _, err := c.Push(ctx, store, root, ref); err != nil {
		t.Fatal(err)
	}
	return root
}

// copyHello copies examples/hello into a temporary directory with its image
// replaced by image.
func copyHello(t *testing.T, image string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hello")
	src := testartifact.ExampleDir("hello")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte("docker.io/hashicorp/http-echo:1.0.0"), []byte(image))
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// renderAt renders the add-on at ref with its relocation record applied, as
// `addonpack render` does for a relocated copy.
func renderAt(t *testing.T, c *registry.Client, ref registry.Reference) string {
	t.Helper()
	ctx := context.Background()
	p, err := consume.Fetch(ctx, artifact.Remote{Client: c, Ref: ref}, consume.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out, err := p.Render(ctx, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := relocate.LoadRecord(ctx, c, ref, p.Loaded.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = rec.Rewrite(ctx, out); err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestCopyImages: --images copies the listed image by digest (every
// platform) beside the add-on, stores the relocation record, and render
// rewrites the image to the destination with the digest fixed; also through
// a tarball.
func TestCopyImages(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	srcHost := testregistry.New(t).Host()
	image := srcHost + "/library/echo:1.0.0"
	imgRef := registry.Reference{Registry: srcHost, Repository: "library/echo", Tag: "1.0.0"}
	imgDesc := pushImage(t, c, imgRef)
	// The image's publisher signed it (cosign's classic tag and a bundle
	// referrer): the signatures travel with the image.
	imgKey := newKey(t)
	for _, f := range []sign.Format{sign.FormatClassic, sign.FormatBundle} {
		if _, err := sign.Sign(ctx, sign.Target{Client: c, Ref: imgRef}, imgDesc, imgKey, sign.Options{Format: f}); err != nil {
			t.Fatal(err)
		}
	}
	pub := filepath.Join(t.TempDir(), "image.pub")
	if err := os.WriteFile(pub, imgKey.PublicPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	imgPolicy, err := verify.PolicyFromKeys(ctx, []string{pub}, verify.KeyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	res, err := build.Build(ctx, copyHello(t, image), store, build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := registry.Reference{Registry: srcHost, Repository: "addons/hello", Tag: "0.1.0"}
	if _, err := c.Push(ctx, store, res.Manifest, src); err != nil {
		t.Fatal(err)
	}
	if out := renderAt(t, c, src); !strings.Contains(out, "image: "+image) {
		t.Fatalf("at the source, the image must stay as packed:\n%s", out)
	}
	check := func(t *testing.T, dstHost string, got *relocate.Result) {
		t.Helper()
		newName := dstHost + "/mirror/hello/library/echo"
		if len(got.Images) != 1 || got.Images[0] != (relocate.ImageMapping{Name: srcHost + "/library/echo", Source: image, NewName: newName, Digest: imgDesc.Digest}) || got.Record == nil {
			t.Fatalf("images: %+v record %v", got.Images, got.Record)
		}
		if d, err := c.Resolve(ctx, registry.Reference{Registry: dstHost, Repository: "mirror/hello/library/echo", Tag: "1.0.0"}); err != nil || d.Digest != imgDesc.Digest {
			t.Fatalf("copied image: %v %v", d.Digest, err)
		}
		mirrored := registry.Reference{Registry: dstHost, Repository: "mirror/hello/library/echo", Tag: "1.0.0"}
		vr, err := verify.Verify(ctx, verify.Target{Client: c, Ref: mirrored}, imgDesc, imgPolicy)
		if err != nil || len(vr.Signatures) != 2 {
			t.Fatalf("the mirrored image's signatures (classic and bundle): %+v %v", vr, err)
		}
		out := renderAt(t, c, registry.Reference{Registry: dstHost, Repository: "mirror/hello", Tag: "0.1.0"})
		if !strings.Contains(out, "image: "+newName+"@"+imgDesc.Digest.String()) || strings.Contains(out, srcHost) {
			t.Fatalf("render at the destination does not use the relocated image:\n%s", out)
		}
	}
	for _, to := range registries {
		t.Run(to.Name, func(t *testing.T) {
			dstHost := to.Start(t)
			got, err := relocate.Copy(ctx, c, src, registry.Reference{Registry: dstHost, Repository: "mirror/hello"}, relocate.Options{Images: true})
			if err != nil {
				t.Fatal(err)
			}
			check(t, dstHost, got)

			tarball := filepath.Join(t.TempDir(), "hello.tar")
			if _, err := relocate.ToTarball(ctx, c, src, tarball, relocate.Options{Images: true}); err != nil {
				t.Fatal(err)
			}
			airgap := to.Start(t)
			got, err = relocate.FromTarball(ctx, c, tarball, registry.Reference{Registry: airgap, Repository: "mirror/hello"}, relocate.Options{Images: true})
			if err != nil {
				t.Fatal(err)
			}
			check(t, airgap, got)
		})
	}
}

// TestFromTarballImagesAfterVerification: images are copied only once the
// add-on verifies at the destination; a copy that fails verification
// leaves no image tag there.
func TestFromTarballImagesAfterVerification(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	srcHost := testregistry.New(t).Host()
	image := srcHost + "/library/echo:1.0.0"
	pushImage(t, c, registry.Reference{Registry: srcHost, Repository: "library/echo", Tag: "1.0.0"})
	store := memory.New()
	res, err := build.Build(ctx, copyHello(t, image), store, build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := registry.Reference{Registry: srcHost, Repository: "addons/hello", Tag: "0.1.0"}
	if _, err := c.Push(ctx, store, res.Manifest, src); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(t.TempDir(), "hello.tar")
	if _, err := relocate.ToTarball(ctx, c, src, tarball, relocate.Options{Images: true}); err != nil {
		t.Fatal(err)
	}
	dstHost := testregistry.New(t).Host()
	_, err = relocate.FromTarball(ctx, c, tarball, registry.Reference{Registry: dstHost, Repository: "mirror/hello"},
		relocate.Options{Images: true, Policy: policyFor(t, newKey(t))}) // unsigned: fails
	if !errors.Is(err, verify.ErrVerification) {
		t.Fatalf("got %v, want a verification failure", err)
	}
	if d, err := c.Resolve(ctx, registry.Reference{Registry: dstHost, Repository: "mirror/hello/library/echo", Tag: "1.0.0"}); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("the image was copied before verification: %v %v", d.Digest, err)
	}
}
