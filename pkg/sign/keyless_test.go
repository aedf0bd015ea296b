package sign_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/sign"
)

// keylessWorld is a test Sigstore with its servers and the workflow whose
// token signs.
type keylessWorld struct {
	ss       *testsigstore.Sigstore
	srv      *testsigstore.Servers
	workflow testsigstore.GitHubWorkflow
	root     *root.TrustedRoot
}

func newKeylessWorld(t *testing.T) *keylessWorld {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ss.TrustedRoot(testsigstore.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &keylessWorld{ss: ss, srv: testsigstore.StartServers(t, ss), root: tr,
		workflow: testsigstore.GitHubWorkflow{Repository: "acme/addons", Workflow: ".github/workflows/release.yaml", Ref: "refs/tags/v0.1.0"}}
}

func (w *keylessWorld) keyless(t *testing.T, tsa bool) *sign.Keyless {
	t.Helper()
	cfg := sign.KeylessConfig{IDToken: w.srv.Token(t, w.workflow.Claims()), FulcioURL: w.srv.Fulcio.URL, RekorURL: w.srv.Rekor.URL}
	if tsa {
		cfg.TSAURL = w.srv.TSA.URL
	}
	k, err := sign.NewKeyless(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// bundles reads every bundle referrer of subject.
func bundles(t *testing.T, p testartifact.Published) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	list, _, err := p.Client.Referrers(ctx, p.Ref, p.Desc, sign.BundleMediaType, 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, d := range list {
		raw, err := p.Client.FetchManifest(ctx, p.Ref.WithDigest(d.Digest), d)
		if err != nil {
			t.Fatal(err)
		}
		var m ocispec.Manifest
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		b, err := p.Client.FetchBlobBytes(ctx, p.Ref, m.Layers[0], 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		out[m.Annotations[sign.AnnotationBundlePredicate]] = b
	}
	return out
}

// verifyBundle checks b the way a consumer with the trusted root and the
// workflow's identity would, for the artifact digest of p.
func (w *keylessWorld) verifyBundle(t *testing.T, b []byte, p testartifact.Published, tsa bool) *verify.VerificationResult {
	t.Helper()
	var pb bundle.Bundle
	if err := pb.UnmarshalJSON(b); err != nil {
		t.Fatalf("bundle: %v", err)
	}
	opts := []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithSignedCertificateTimestamps(1), verify.WithIntegratedTimestamps(1)}
	if tsa {
		opts = append(opts, verify.WithSignedTimestamps(1))
	}
	v, err := verify.NewVerifier(w.root, opts...)
	if err != nil {
		t.Fatal(err)
	}
	id := w.workflow.Identity()
	certID, err := verify.NewShortCertificateIdentity(id.Extensions.Issuer, "", id.URI, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify(&pb, verify.NewPolicy(verify.WithArtifactDigest("sha256", mustHex(t, p.Desc.Digest.String())), verify.WithCertificateIdentity(certID)))
	if err != nil {
		t.Fatalf("keyless bundle does not verify: %v", err)
	}
	return res
}

func mustHex(t *testing.T, d string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(d, "sha256:"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Keyless signing and attesting store Sigstore bundles that verify with
// sigstore-go against the test root for the workflow identity, on the
// embedded registry and on distribution 2.8, with and without a TSA.
func TestKeylessSignAndAttest(t *testing.T) {
	w := newKeylessWorld(t)
	for _, r := range realregistry.Both() {
		for _, tsa := range []bool{false, true} {
			name := r.Name
			if tsa {
				name += "+tsa"
			}
			t.Run(name, func(t *testing.T) {
				ctx := context.Background()
				p := testartifact.PushHello(t, r.Start(t), "addons/hello", "0.1.0", build.Options{})
				k := w.keyless(t, tsa)
				tgt := sign.Target{Client: p.Client, Ref: p.Ref}
				sig, err := sign.Sign(ctx, tgt, p.Desc, nil, sign.Options{Keyless: k, Annotations: map[string]string{"team": "dns"}})
				if err != nil {
					t.Fatal(err)
				}
				id := w.workflow.Identity()
				if sig.Kind != "signature" || sig.Format != sign.FormatBundle || sig.Identity != id.URI || sig.Issuer != testsigstore.GitHubActionsIssuer || sig.KeyID != "" {
					t.Errorf("signature result %+v", sig)
				}
				stmt, err := sign.Statement(p.Ref.Repo(), p.Desc.Digest, "https://slsa.dev/provenance/v1", json.RawMessage(`{"buildDefinition":{}}`))
				if err != nil {
					t.Fatal(err)
				}
				att, err := sign.Attest(ctx, tgt, p.Desc, nil, stmt, sign.Options{Keyless: k})
				if err != nil {
					t.Fatal(err)
				}
				if att.Kind != "attestation" || att.PredicateType != "https://slsa.dev/provenance/v1" || att.Identity != id.URI {
					t.Errorf("attestation result %+v", att)
				}
				if n := len(w.srv.Fulcio.Issued()); n == 0 {
					t.Fatal("Fulcio issued nothing")
				}
				got := bundles(t, p)
				if len(got) != 2 {
					t.Fatalf("%d bundle referrers, want the signature's and the attestation's", len(got))
				}
				for pt, b := range got {
					res := w.verifyBundle(t, b, p, tsa)
					if res.Statement.GetPredicateType() != pt {
						t.Errorf("bundle stored under %s holds a %s statement", pt, res.Statement.GetPredicateType())
					}
					if tsa && len(res.VerifiedTimestamps) < 2 {
						t.Errorf("%s: verified timestamps %+v, want the log's and the TSA's", pt, res.VerifiedTimestamps)
					}
				}
				if _, ok := got[sign.CosignSignPredicateType]; !ok {
					t.Errorf("no bundle of type %s", sign.CosignSignPredicateType)
				}
			})
		}
	}
}

// One Keyless asks Fulcio once for any number of bundles.
func TestKeylessReusesItsCertificate(t *testing.T) {
	w := newKeylessWorld(t)
	p := testartifact.PushHello(t, testregistryHost(t), "addons/hello", "0.1.0", build.Options{})
	k := w.keyless(t, false)
	tgt := sign.Target{Client: p.Client, Ref: p.Ref}
	for range 3 {
		if _, err := sign.Sign(context.Background(), tgt, p.Desc, nil, sign.Options{Keyless: k}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(w.srv.Fulcio.Issued()); n != 1 {
		t.Errorf("Fulcio asked %d times, want once", n)
	}
	if n := len(w.srv.Rekor.Entries()); n != 3 {
		t.Errorf("%d log entries, want one per signature", n)
	}
}

func testregistryHost(t *testing.T) string { return realregistry.Both()[0].Start(t) }

func TestKeylessRefusals(t *testing.T) {
	w := newKeylessWorld(t)
	p := testartifact.PushHello(t, testregistryHost(t), "addons/hello", "0.1.0", build.Options{})
	tgt := sign.Target{Client: p.Client, Ref: p.Ref}
	ctx := context.Background()
	other, err := testsigstore.NewOIDCIssuer()
	if err != nil {
		t.Fatal(err)
	}
	forged, err := other.Token(w.workflow.Claims())
	if err != nil {
		t.Fatal(err)
	}
	wrongRoot, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	wrongRootJSON, err := wrongRoot.TrustedRootJSON(testsigstore.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  sign.KeylessConfig
		opts sign.Options
		says string
	}{
		{"token Fulcio does not trust", sign.KeylessConfig{IDToken: forged, FulcioURL: w.srv.Fulcio.URL, RekorURL: w.srv.Rekor.URL}, sign.Options{}, "Fulcio returned 401"},
		{"Rekor unreachable", sign.KeylessConfig{IDToken: w.srv.Token(t, w.workflow.Claims()), FulcioURL: w.srv.Fulcio.URL, RekorURL: "http://127.0.0.1:1"}, sign.Options{}, "Rekor http://127.0.0.1:1"},
		{"classic format", sign.KeylessConfig{IDToken: "x"}, sign.Options{Format: sign.FormatClassic}, "stored as bundles"},
		{"signed bundle fails the given root", sign.KeylessConfig{IDToken: w.srv.Token(t, w.workflow.Claims()), FulcioURL: w.srv.Fulcio.URL, RekorURL: w.srv.Rekor.URL, TrustedRoot: wrongRootJSON}, sign.Options{}, "keyless"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := sign.NewKeyless(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			tc.opts.Keyless = k
			_, err = sign.Sign(ctx, tgt, p.Desc, nil, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err %v, want one saying %q", err, tc.says)
			}
			if unreachable := strings.Contains(tc.name, "unreachable"); unreachable != errors.Is(err, errdef.ErrUnreachable) {
				t.Errorf("error %v: in class unreachable %v, want %v", err, !unreachable, unreachable)
			}
			if tc.cfg.FulcioURL != "" && !strings.Contains(err.Error(), p.Desc.Digest.String()) {
				t.Errorf("error %q does not name the digest", err)
			}
		})
	}
	if got := bundles(t, p); len(got) != 0 {
		t.Errorf("failed signing left %d referrers behind", len(got))
	}
	for _, cfg := range []sign.KeylessConfig{{}, {IDToken: "t", FulcioURL: "ftp://x"}, {IDToken: "t", RekorURL: "rekor"}} {
		if _, err := sign.NewKeyless(cfg); err == nil {
			t.Errorf("NewKeyless(%+v) accepted", cfg)
		}
	}
}
