package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// cli runs the CLI in process and fails unless it exits 0.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := New(Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(string) string { return "" })
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("addonpack %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// TestCopyImagesAndRender: copy --images puts the image beside the add-on on
// distribution 2.8 and render of the copy (the relocated hook) points the
// Deployment at it, digest pinned.
func TestCopyImagesAndRender(t *testing.T) {
	ctx := context.Background()
	srcHost, dstHost := testregistry.New(t).Host(), realregistry.Start(t, realregistry.Options{})
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A one-layer image at the source.
	store := memory.New()
	put := func(mt string, b []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(b), Size: int64(len(b))}
		store.Push(ctx, d, bytes.NewReader(b))
		return d
	}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest,
		Config: put(ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`)),
		Layers: []ocispec.Descriptor{put(ocispec.MediaTypeImageLayerGzip, []byte("layer"))}}
	m.SchemaVersion = 2
	raw, _ := json.Marshal(m)
	img := put(ocispec.MediaTypeImageManifest, raw)
	if _, err := c.Push(ctx, store, img, registry.Reference{Registry: srcHost, Repository: "library/echo", Tag: "1.0.0"}); err != nil {
		t.Fatal(err)
	}

	src := filepath.Join(t.TempDir(), "hello")
	cli(t, "init", src)
	dep := filepath.Join(src, "deployment.yaml")
	b, _ := os.ReadFile(dep)
	os.WriteFile(dep, bytes.ReplaceAll(b, []byte("docker.io/hashicorp/http-echo:1.0.0"), []byte(srcHost+"/library/echo:1.0.0")), 0o644)
	cli(t, "push", src, srcHost+"/addons/hello:0.1.0")
	out := cli(t, "copy", srcHost+"/addons/hello:0.1.0", dstHost+"/mirror/hello", "--images", "--insecure-skip-verify", "--format", "json")
	var res struct {
		Images []struct{ NewName, Digest string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Images) != 1 ||
		res.Images[0].NewName != dstHost+"/mirror/hello/library/echo" || res.Images[0].Digest != img.Digest.String() {
		t.Fatalf("copy --images: %v %s", err, out)
	}

	var errb bytes.Buffer
	g := &globals{streams: Streams{Out: &bytes.Buffer{}, Err: &errb}, getenv: func(string) string { return "" }, noCache: true}
	arg := dstHost + "/mirror/hello:0.1.0"
	open := func(arg string, trustTags bool) *deliver.Package {
		t.Helper()
		c, err := g.consumer(ctx, &verifyFlags{TrustOptions: verify.TrustOptions{SkipVerify: true}})
		if err != nil {
			t.Fatal(err)
		}
		c.Relocated, c.TrustRelocatedTags = true, trustTags
		p, err := c.Package(ctx, arg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	// The add-on names its image by tag only, and copy --images moved it
	// beside the add-on, pinned by the digest it copied: applied with no
	// flag (a relocation elsewhere needs the opt-in: pkg/relocate's
	// TestTrusted).
	p := open(arg, false)
	if p.Images == nil || strings.Contains(errb.String(), "ignoring the relocation") {
		t.Fatalf("the relocation beside the add-on was not applied: %v\n%s", p.Images, errb.String())
	}
	rendered, err := p.Render(ctx, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "image: " + dstHost + "/mirror/hello/library/echo@" + img.Digest.String()
	if !strings.Contains(string(rendered), want) || !strings.Contains(errb.String(), "relocated") {
		t.Fatalf("render of the copy lacks %q:\n%s\n%s", want, rendered, errb.String())
	}
	// The kustomize directory carries the same relocation for kubectl -k, Flux or Argo CD.
	kdir := filepath.Join(t.TempDir(), "k")
	if _, err := p.WriteKustomize(ctx, nil, "", kdir, false); err != nil {
		t.Fatal(err)
	}
	local, err := g.open(ctx, kdir, &verifyFlags{TrustOptions: verify.TrustOptions{SkipVerify: true}}, semver.Version{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if fromDir, err := local.Render(ctx, nil, ""); err != nil || !strings.Contains(string(fromDir), want) {
		t.Fatalf("kustomize directory of the copy lacks %q (%v)", want, err)
	}
	// At the source there is no record: nothing changes.
	if ps := open(srcHost+"/addons/hello:0.1.0", true); ps.Images != nil {
		t.Fatalf("a record was found at the source: %v", ps.Images)
	}
}
