package testsigstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/sigstore/cosign/v2/pkg/cosign"
	ociremote "github.com/sigstore/cosign/v2/pkg/oci/remote"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/testregistry"
)

var workflow = testsigstore.GitHubWorkflow{Repository: "acme/addons", Ref: "refs/tags/v1.0.0", Workflow: ".github/workflows/release.yml"}

func newSigstore(t *testing.T) (*testsigstore.Sigstore, *root.TrustedRoot) {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ss.TrustedRootJSON(testsigstore.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Through JSON, as a user's file is read.
	tr, err := root.NewTrustedRootFromJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return ss, tr
}

// strictVerifier demands everything the root offers: an SCT, a log entry
// and a signed timestamp.
func strictVerifier(t *testing.T, tr *root.TrustedRoot) *verify.Verifier {
	t.Helper()
	v, err := verify.NewVerifier(tr, verify.WithSignedCertificateTimestamps(1), verify.WithTransparencyLog(1), verify.WithSignedTimestamps(1))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func githubPolicy(t *testing.T, ext certificate.Extensions) verify.PolicyOption {
	t.Helper()
	san, err := verify.NewSANMatcher("", `^https://github\.com/acme/addons/`)
	if err != nil {
		t.Fatal(err)
	}
	iss, err := verify.NewIssuerMatcher(testsigstore.GitHubActionsIssuer, "")
	if err != nil {
		t.Fatal(err)
	}
	id, err := verify.NewCertificateIdentity(san, iss, ext)
	if err != nil {
		t.Fatal(err)
	}
	return verify.WithCertificateIdentity(id)
}

func TestBundlesVerifyWithSigstoreGo(t *testing.T) {
	ss, tr := newSigstore(t)
	digest := "sha256:" + strings.Repeat("ab", 32)
	stmt, err := testsigstore.Statement("localhost/acme/addon", digest, testsigstore.CosignSignPredicate, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := workflow.Identity()
	dsseBundle, err := ss.DSSEBundle(id, stmt, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	payload := testsigstore.SimpleSigning("localhost/acme/addon", digest)
	msgBundle, err := ss.MessageBundle(id, payload, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(strings.Repeat("ab", 32))
	sum := sha256.Sum256(payload)
	for name, c := range map[string]struct {
		b        []byte
		artifact verify.ArtifactPolicyOption
	}{
		"dsse":    {dsseBundle, verify.WithArtifactDigest("sha256", raw)},
		"message": {msgBundle, verify.WithArtifactDigest("sha256", sum[:])},
	} {
		t.Run(name, func(t *testing.T) {
			var b bundle.Bundle
			if err := b.UnmarshalJSON(c.b); err != nil {
				t.Fatal(err)
			}
			res, err := strictVerifier(t, tr).Verify(&b, verify.NewPolicy(c.artifact,
				githubPolicy(t, certificate.Extensions{GithubWorkflowRepository: "acme/addons", SourceRepositoryRef: "refs/tags/v1.0.0"})))
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			got := res.Signature.Certificate
			if got.SubjectAlternativeName != id.URI || got.Issuer != testsigstore.GitHubActionsIssuer ||
				got.BuildSignerURI != id.Extensions.BuildSignerURI || got.RunnerEnvironment != "github-hosted" {
				t.Fatalf("certificate summary %+v", got)
			}
			// A wrong extension value is refused: the extensions are real.
			_, err = strictVerifier(t, tr).Verify(&b, verify.NewPolicy(c.artifact,
				githubPolicy(t, certificate.Extensions{SourceRepositoryRef: "refs/heads/main"})))
			if err == nil {
				t.Fatal("a policy demanding another ref accepted the bundle")
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	ss, tr := newSigstore(t)
	digest := "sha256:" + strings.Repeat("cd", 32)
	raw, _ := hex.DecodeString(strings.Repeat("cd", 32))
	stmt, _ := testsigstore.Statement("localhost/acme/addon", digest, testsigstore.CosignSignPredicate, nil)
	for name, c := range map[string]struct {
		o    testsigstore.SignOptions
		want string
	}{
		"foreign log key":      {testsigstore.SignOptions{ForeignLog: true}, "log inclusion"},
		"no log entry":         {testsigstore.SignOptions{NoTlog: true}, "log inclusion"},
		"no timestamp":         {testsigstore.SignOptions{NoTimestamp: true}, "signed timestamps"},
		"no sct":               {testsigstore.SignOptions{Cert: testsigstore.CertOptions{NoSCT: true}}, "SCT"},
		"before the CA's time": {testsigstore.SignOptions{At: ss.Start.Add(-time.Hour)}, "log inclusion"},
		"expired leaf":         {testsigstore.SignOptions{Cert: testsigstore.CertOptions{NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(-50 * time.Minute)}}, "outside certificate validity"},
	} {
		o := c.o
		t.Run(name, func(t *testing.T) {
			bj, err := ss.DSSEBundle(workflow.Identity(), stmt, o)
			if err != nil {
				t.Fatal(err)
			}
			var b bundle.Bundle
			if err := b.UnmarshalJSON(bj); err != nil {
				t.Fatal(err)
			}
			_, err = strictVerifier(t, tr).Verify(&b, verify.NewPolicy(verify.WithArtifactDigest("sha256", raw), githubPolicy(t, certificate.Extensions{})))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error about %q", err, c.want)
			}
		})
	}
}

func TestClassicVerifiesWithCosign(t *testing.T) {
	ss, tr := newSigstore(t)
	ctx := context.Background()
	host := testregistry.New(t).Host()
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	tag, _ := name.ParseReference(host+"/acme/addon:v1", name.Insecure)
	if err := remote.Write(tag, img, remote.WithContext(ctx)); err != nil {
		t.Fatal(err)
	}
	h, _ := img.Digest()
	ref := host + "/acme/addon@" + h.String()
	id := workflow.Identity()
	sig, err := ss.ClassicSignature(id, host+"/acme/addon", h.String(), testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stmt, _ := testsigstore.Statement(host+"/acme/addon", h.String(), testsigstore.SLSAProvenanceV1, map[string]any{"buildDefinition": map[string]any{}})
	att, err := ss.ClassicAttestation(id, stmt, testsigstore.SLSAProvenanceV1, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := testsigstore.WriteClassic(ctx, ref, sig, att); err != nil {
		t.Fatal(err)
	}
	d, _ := name.NewDigest(ref, name.Insecure)
	co := &cosign.CheckOpts{
		TrustedMaterial:              tr,
		Identities:                   []cosign.Identity{{Issuer: testsigstore.GitHubActionsIssuer, SubjectRegExp: `^https://github\.com/acme/addons/`}},
		CertGithubWorkflowRepository: "acme/addons",
		UseSignedTimestamps:          true,
		RegistryClientOpts:           []ociremote.Option{ociremote.WithRemoteOptions(remote.WithContext(ctx))},
		ClaimVerifier:                cosign.SimpleClaimVerifier,
	}
	sigs, bundled, err := cosign.VerifyImageSignatures(ctx, d, co)
	if err != nil || !bundled || len(sigs) != 1 {
		t.Fatalf("signatures: %d bundled=%v %v", len(sigs), bundled, err)
	}
	co.ClaimVerifier = cosign.IntotoSubjectClaimVerifier
	atts, bundled, err := cosign.VerifyImageAttestations(ctx, d, co)
	if err != nil || !bundled || len(atts) != 1 {
		t.Fatalf("attestations: %d bundled=%v %v", len(atts), bundled, err)
	}
	co.Identities = []cosign.Identity{{Issuer: testsigstore.GoogleIssuer, SubjectRegExp: ".*"}}
	co.ClaimVerifier = cosign.SimpleClaimVerifier
	if _, _, err := cosign.VerifyImageSignatures(ctx, d, co); err == nil {
		t.Fatal("cosign accepted a signature for another issuer")
	}
}

func TestBundleReferrerIsStored(t *testing.T) {
	ss, tr := newSigstore(t)
	ctx := context.Background()
	host := testregistry.New(t).Host()
	img, _ := random.Image(64, 1)
	tag, _ := name.ParseReference(host+"/acme/addon:v1", name.Insecure)
	if err := remote.Write(tag, img, remote.WithContext(ctx)); err != nil {
		t.Fatal(err)
	}
	h, _ := img.Digest()
	stmt, _ := testsigstore.Statement(host+"/acme/addon", h.String(), testsigstore.CosignSignPredicate, nil)
	bj, err := ss.DSSEBundle(testsigstore.Email("dev@example.com", testsigstore.GoogleIssuer), stmt, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := host + "/acme/addon@" + h.String()
	if err := testsigstore.WriteBundle(ctx, ref, bj, testsigstore.CosignSignPredicate); err != nil {
		t.Fatal(err)
	}
	d, _ := name.NewDigest(ref, name.Insecure)
	bundles, _, err := cosign.GetBundles(ctx, d, &cosign.CheckOpts{RegistryClientOpts: []ociremote.Option{ociremote.WithRemoteOptions(remote.WithContext(ctx))}})
	if err != nil || len(bundles) != 1 {
		t.Fatalf("bundles: %d %v", len(bundles), err)
	}
	san, _ := verify.NewSANMatcher("dev@example.com", "")
	iss, _ := verify.NewIssuerMatcher(testsigstore.GoogleIssuer, "")
	cid, _ := verify.NewCertificateIdentity(san, iss, certificate.Extensions{})
	raw, _ := hex.DecodeString(h.Hex)
	if _, err := strictVerifier(t, tr).Verify(bundles[0], verify.NewPolicy(verify.WithArtifactDigest("sha256", raw), verify.WithCertificateIdentity(cid))); err != nil {
		t.Fatal(err)
	}
}
