package push_test

import (
	"context"
	"github.com/addonpack/addonpack/internal/testkey"
	"strings"
	"testing"

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
