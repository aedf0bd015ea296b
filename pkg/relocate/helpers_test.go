package relocate_test

import (
	"context"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// registries are the two registries every flow runs against: addonpack's
// strict OCI 1.1 registry (referrers API) and CNCF distribution 2.8 (none:
// the referrers tag schema).
var registries = realregistry.Both()

func newClient(t *testing.T) *registry.Client {
	t.Helper()
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pushSigned builds examples/hello, pushes it to host/repo:tag, and signs
// and attests SLSA provenance in both formats with s.
func pushSigned(t *testing.T, c *registry.Client, host, repo, tag string, s *keys.Signer) (registry.Reference, ocispec.Descriptor) {
	t.Helper()
	p := testartifact.Signed(t, c, testartifact.ExampleDir("hello"), registry.Reference{Registry: host, Repository: repo, Tag: tag}, s)
	return p.Ref, p.Desc
}

func newKey(t *testing.T) *keys.Signer {
	t.Helper()
	s, _, _ := testkey.New(t)
	return s
}

// policyFor trusts s and requires provenance.
func policyFor(t *testing.T, s *keys.Signer) *verify.Policy {
	t.Helper()
	return testartifact.Policy(t, verify.KeyOptions{Provenance: verify.ProvenanceRules{Required: true}}, s)
}

// checkVerified verifies ref's digest d with pol and wants both schemes'
// signatures and attestations valid.
func checkVerified(t *testing.T, c *registry.Client, ref registry.Reference, d ocispec.Descriptor, pol *verify.Policy) {
	t.Helper()
	res, err := verify.Verify(context.Background(), verify.Target{Client: c, Ref: ref}, d, pol)
	if err != nil {
		t.Fatalf("verify %s: %v", ref.WithDigest(d.Digest), err)
	}
	formats := map[string]int{}
	for _, cd := range append(res.Signatures, res.Attestations...) {
		if cd.Verdict != verify.Valid {
			t.Errorf("%s %s at %s: %s", cd.Format, cd.Kind, cd.Location, cd.Reason)
		}
		formats[cd.Format+"/"+cd.Kind]++
	}
	for _, k := range []string{"classic/signature", "classic/attestation", "bundle/signature", "bundle/attestation"} {
		if formats[k] != 1 {
			t.Errorf("%s at %s: %d, want 1 (%v)", k, ref.Repo(), formats[k], formats)
		}
	}
}
