package relocate_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
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

func examplesDir(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", name)
}

// pushSigned builds examples/hello, pushes it to host/repo:tag, and signs
// and attests SLSA provenance in both formats with s.
func pushSigned(t *testing.T, c *registry.Client, host, repo, tag string, s *keys.Signer) (registry.Reference, ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	store := memory.New()
	res, err := build.Build(ctx, examplesDir("hello"), store, build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref := registry.Reference{Registry: host, Repository: repo, Tag: tag}
	if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
		t.Fatal(err)
	}
	desc, err := c.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	st, err := provenance.New(provenance.Facts{
		SubjectName: ref.Repo(), SubjectDigest: desc.Digest, AddonName: "hello", AddonVersion: "0.1.0",
		BuilderID: "https://ci.example/builder", StartedOn: time.Now(), FinishedOn: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := provenance.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	tgt := sign.Target{Client: c, Ref: ref}
	for _, f := range []sign.Format{sign.FormatClassic, sign.FormatBundle} {
		if _, err := sign.Sign(ctx, tgt, desc, s, sign.Options{Format: f}); err != nil {
			t.Fatal(err)
		}
		if _, err := sign.Attest(ctx, tgt, desc, s, stmt, sign.Options{Format: f}); err != nil {
			t.Fatal(err)
		}
	}
	return ref, desc
}

func newKey(t *testing.T) *keys.Signer {
	t.Helper()
	s, _, _ := testkey.New(t)
	return s
}

// policyFor trusts s and requires provenance.
func policyFor(t *testing.T, s *keys.Signer) *verify.Policy {
	t.Helper()
	p := filepath.Join(t.TempDir(), "k.pub")
	if err := os.WriteFile(p, s.PublicPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := verify.PolicyFromKeys(context.Background(), []string{p}, verify.KeyOptions{
		Provenance: verify.ProvenanceRules{Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	return pol
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
