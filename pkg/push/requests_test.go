package push_test

import (
	"context"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/push"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

// TestSignedPushRequests counts what a signed push asks of a registry: the
// artifact's nodes are looked up before upload (a re-push uploads nothing),
// the signature and attestation images, new by construction, are uploaded
// without asking.
func TestSignedPushRequests(t *testing.T) {
	signer, _, _ := testkey.New(t)
	reg := testregistry.New(t)
	c, _ := registry.New(registry.Options{})
	ref, _ := registry.ParseReference(reg.Host() + "/addons/hello:0.1.0")
	if _, err := push.Push(context.Background(), c, hello, ref, push.Options{Sign: &push.SignOptions{Signer: signer}}); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, r := range reg.Log() {
		kind := "blob"
		if strings.Contains(r.Path, "/manifests/") {
			kind = "manifest"
		}
		counts[r.Method+" "+kind]++
	}
	want := map[string]int{
		"HEAD manifest": 3, // the artifact, then the .sig and .att tags (signatures already there are kept)
		"HEAD blob":     2, // the artifact's config and layer
		"POST blob":     6, // config and layer, and a payload and config per signature image
		"PUT blob":      6,
		"PUT manifest":  3, // the artifact by tag, .sig, .att
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d requests, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("unexpected requests: %v", counts)
	}
}

// TestSignedPushSBOMRequests counts what --sbom adds to a signed push (the
// README's figures): the image's HEAD, then the .att image read back and
// written again with the SBOM layer.
func TestSignedPushSBOMRequests(t *testing.T) {
	signer, _, _ := testkey.New(t)
	reg := testregistry.New(t)
	c, _ := registry.New(registry.Options{})
	img, _ := registry.ParseImageReference("docker.io/hashicorp/http-echo:1.0.0")
	img.Registry = reg.Host()
	pushImage(t, c, img)
	before := len(reg.Log())
	ref, _ := registry.ParseReference(reg.Host() + "/addons/hello:0.1.0")
	so := &push.SignOptions{Signer: signer, SBOM: &push.SBOMOptions{Resolver: mirror{c, reg.Host()}}}
	if _, err := push.Push(context.Background(), c, hello, ref, push.Options{Sign: so}); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, r := range reg.Log()[before:] {
		kind := "blob"
		if strings.Contains(r.Path, "/manifests/") {
			kind = "manifest"
		}
		counts[r.Method+" "+kind]++
	}
	want := map[string]int{
		"HEAD manifest": 5, // the three of a signed push, the image, the .att tag again
		"GET manifest":  1, // the .att image
		"GET blob":      1, // its provenance layer
		"HEAD blob":     2,
		"POST blob":     9, // a signed push's 6, the .att image's three blobs again
		"PUT blob":      9,
		"PUT manifest":  4, // and the .att image again
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d requests, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("unexpected requests: %v", counts)
	}
}
