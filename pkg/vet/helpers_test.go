package vet_test

import (
	"context"
	"testing"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/pkg/vet"
	"github.com/addonpack/addonpack/testregistry"
)

// upstream is a publisher's add-on on a fresh registry: examples/hello,
// signed and attested (SLSA provenance) by the publisher in format f.
type upstream struct {
	client    *registry.Client
	host      string
	published testartifact.Published
	publisher *keys.Signer
	policy    *verify.Policy // trusts the publisher, requires provenance
}

func publish(t *testing.T, f sign.Format) upstream {
	t.Helper()
	return publishOn(t, testregistry.New(t).Host(), f)
}

// publishOn is publish on the registry at host.
func publishOn(t *testing.T, host string, f sign.Format) upstream {
	t.Helper()
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pub := newKey(t)
	p := testartifact.Signed(t, c, testartifact.ExampleDir("hello"), registry.Reference{Registry: host, Repository: "upstream/hello", Tag: "0.1.0"}, pub, f)
	pol := testartifact.Policy(t, verify.KeyOptions{Provenance: verify.ProvenanceRules{Required: true}}, pub)
	return upstream{client: c, host: host, published: p, publisher: pub, policy: pol}
}

func newKey(t *testing.T) *keys.Signer {
	t.Helper()
	s, _, _ := testkey.New(t)
	return s
}

// options vets u under its upstream policy with org's key in format f.
func (u upstream) options(org *keys.Signer, f sign.Format) vet.Options {
	return vet.Options{Upstream: consume.Options{Client: u.client, Policy: u.policy}, Signer: org,
		Sign: sign.Options{Format: f}, PolicyURI: "upstream.yaml", Version: "test"}
}

// summaryRule is the requireVerificationSummary body for vet's default
// verifier, pinned to the upstream policy's digest when d is not "".
func summaryRule(d string) string {
	s := "      verifier: " + vet.DefaultVerifierID + "\n"
	if d != "" {
		s += "      policyDigest: " + d + "\n"
	}
	return s
}

// attached lists every signature and attestation stored for p.
func attached(t *testing.T, c *registry.Client, ref registry.Reference, p testartifact.Published) []verify.Candidate {
	t.Helper()
	cands, err := verify.Attached(context.Background(), verify.Target{Client: c, Ref: ref}, p.Desc, verify.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return cands
}

// testPolicyBoth trusts the publisher and the organisation alike.
func testPolicyBoth(t *testing.T, u upstream, org *keys.Signer) *verify.Policy {
	t.Helper()
	return testartifact.Policy(t, verify.KeyOptions{}, u.publisher, org)
}
