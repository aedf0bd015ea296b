package consume_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// A program that verifies an add-on and renders it with the user's values:
// the body of renderVerified is all a Go program needs.
func ExampleConsumer_Package() {
	ref, pub, cleanup := publishSignedHello()
	defer cleanup()
	out, err := renderVerified(context.Background(), ref, pub, []byte("apiVersion: hello.addons.example.com/v1alpha1\nkind: HelloConfig\nspec:\n  replicas: 3\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(string(out), "replicas: 3"))
	// Output: true
}

// renderVerified renders the add-on at ref, signed by the key in pubFile,
// with values: nothing is read from ref before its digest verifies.
func renderVerified(ctx context.Context, ref, pubFile string, values []byte) ([]byte, error) {
	client, err := registry.New(registry.Options{})
	if err != nil {
		return nil, err
	}
	policy, err := verify.PolicyFromKeys(ctx, []string{pubFile}, verify.KeyOptions{})
	if err != nil {
		return nil, err
	}
	c := consume.New(consume.Options{Client: client, Policy: policy})
	p, err := c.Package(ctx, ref)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Render(ctx, values, "values.yaml")
}

// publishSignedHello pushes examples/hello to an in-process registry and
// signs it; it returns the reference, the public key file and a cleanup.
func publishSignedHello() (ref, pubFile string, cleanup func()) {
	ctx := context.Background()
	srv := httptest.NewServer(testregistry.NewHandler(testregistry.NewMemoryStorage()))
	tmp, _ := os.MkdirTemp("", "consumer-example-*")
	c, _ := registry.New(registry.Options{})
	r, _ := registry.ParseReference(strings.TrimPrefix(srv.URL, "http://") + "/addons/hello:0.1.0")
	store := memory.New()
	built, _ := build.Build(ctx, "../../examples/hello", store, build.Options{})
	c.Push(ctx, store, built.Manifest, r)
	pair, _ := keys.GenerateKeyPair(keys.StaticPass([]byte("pw")))
	os.WriteFile(filepath.Join(tmp, "k.key"), pair.PrivatePEM, 0o600)
	pubFile = filepath.Join(tmp, "k.pub")
	os.WriteFile(pubFile, pair.PublicPEM, 0o644)
	signer, _ := keys.LoadSigner(ctx, filepath.Join(tmp, "k.key"), keys.StaticPass([]byte("pw")), nil)
	sign.Sign(ctx, sign.Target{Client: c, Ref: r}, built.Manifest, signer, sign.Options{})
	return r.String(), pubFile, func() { srv.Close(); os.RemoveAll(tmp) }
}
