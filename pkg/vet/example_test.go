package vet_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/pkg/vet"
	"github.com/addonpack/addonpack/testregistry"
)

// An organisation vets a publisher's add-on once, at import: the add-on
// verifies under the publisher's policy, then carries the organisation's
// signature and verification summary, which a downstream policy trusting
// only the organisation's key accepts.
func ExampleVet() {
	ctx := context.Background()
	srv := httptest.NewServer(testregistry.NewHandler(testregistry.NewMemoryStorage()))
	defer srv.Close()
	client, _ := registry.New(registry.Options{})
	ref, _ := registry.ParseReference(strings.TrimPrefix(srv.URL, "http://") + "/upstream/hello:0.1.0")
	store := memory.New()
	built, _ := build.Build(ctx, "../../examples/hello", store, build.Options{})
	client.Push(ctx, store, built.Manifest, ref)
	publisher, org := newSigner(ctx), newSigner(ctx)
	sign.Sign(ctx, sign.Target{Client: client, Ref: ref}, built.Manifest, publisher, sign.Options{Format: sign.FormatBundle})

	upstream := trusting(ctx, publisher, "")
	res, err := vet.Vet(ctx, ref, vet.Options{
		Upstream:  consume.Options{Client: client, Policy: upstream},
		Signer:    org,
		Sign:      sign.Options{Format: sign.FormatBundle},
		PolicyURI: "publisher-policy.yaml",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Predicate.VerificationResult, res.Predicate.VerifiedLevels)

	downstream := trusting(ctx, org, "    requireVerificationSummary: {verifier: "+vet.DefaultVerifierID+"}\n")
	v, err := consume.Verify(ctx, ref, consume.Options{Client: client, Policy: downstream})
	fmt.Println(err == nil && v.Summary.Holds)
	// Output:
	// PASSED [SLSA_BUILD_LEVEL_0]
	// true
}

// newSigner generates a key pair and unlocks its private key.
func newSigner(ctx context.Context) *keys.Signer {
	pair, _ := keys.GenerateKeyPair(keys.StaticPass([]byte("pw")))
	s, _ := keys.LoadSigner(ctx, "env://KEY", keys.StaticPass([]byte("pw")), func(string) string { return string(pair.PrivatePEM) })
	return s
}

// trusting is a v1alpha2 policy trusting s, with extra lines in its scope.
func trusting(ctx context.Context, s *keys.Signer, extra string) *verify.Policy {
	pem := strings.ReplaceAll(strings.TrimSpace(string(s.PublicPEM())), "\n", "\n        ")
	doc := "apiVersion: addonpack.dev/v1alpha2\nkind: VerificationPolicy\nkeys:\n  - name: k\n    publicKey: |\n        " + pem + "\nscopes:\n  - keys: [k]\n" + extra
	p, err := verify.ParsePolicy(ctx, []byte(doc), "policy.yaml", nil)
	if err != nil {
		panic(err)
	}
	return p
}
