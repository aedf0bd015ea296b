package verify_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

const (
	vetID     = "https://addonpack.dev/vet"
	upstreamD = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
)

// vsa is a VSA predicate about resource (REPO@DIGEST).
func vsa(verifier, resource, result, policyHex string) []byte {
	return fmt.Appendf(nil, `{"verifier":{"id":%q},"timeVerified":"2026-12-02T21:00:00Z","resourceUri":%q,`+
		`"policy":{"uri":"upstream.yaml","digest":{"sha256":%q}},"inputAttestations":[],"verificationResult":%q,`+
		`"verifiedLevels":["SLSA_BUILD_LEVEL_1"],"slsaVersion":"1.0","https://example.com/extension":true}`,
		verifier, resource, policyHex, result)
}

// TestVerificationSummary: a scope requiring a summary passes only with a
// valid VSA by its signers that names its verifier, PASSED, the manifest
// digest and (when pinned) the upstream policy; each failure names the
// scope and what failed (exit 9, ErrAttestation).
func TestVerificationSummary(t *testing.T) {
	upstreamHex := strings.TrimPrefix(upstreamD, "sha256:")
	rule := "      verifier: " + vetID + "\n      policyDigest: " + upstreamD + "\n"
	for _, tc := range []struct {
		name string
		// write stores the attestations for e (signed by org unless it
		// says otherwise); e names the resource.
		write func(t *testing.T, e env, org *keys.Signer) []byte
		rule  string
		why   string // "" when it holds
	}{
		{"holds", func(t *testing.T, e env, org *keys.Signer) []byte {
			return vsa(vetID, e.ref.Repo()+"@"+e.desc.Digest.String(), "PASSED", upstreamHex)
		}, rule, ""},
		{"holds after a copy to another repository, without a policy digest", func(t *testing.T, e env, org *keys.Signer) []byte {
			return vsa(vetID, "elsewhere.example.com/vendor/hello@"+e.desc.Digest.String(), "PASSED", "00")
		}, "      verifier: " + vetID + "\n", ""},
		{"no summary", nil, rule, "no valid verification summary"},
		{"another verifier", func(t *testing.T, e env, org *keys.Signer) []byte {
			return vsa("https://other.example/vet", e.ref.Repo()+"@"+e.desc.Digest.String(), "PASSED", upstreamHex)
		}, rule, `verifier "https://other.example/vet", want "` + vetID + `"`},
		{"failed", func(t *testing.T, e env, org *keys.Signer) []byte {
			return vsa(vetID, e.ref.Repo()+"@"+e.desc.Digest.String(), "FAILED", upstreamHex)
		}, rule, "verificationResult FAILED"},
		{"another digest", func(t *testing.T, e env, org *keys.Signer) []byte {
			return vsa(vetID, e.ref.Repo()+"@sha256:"+strings.Repeat("2", 64), "PASSED", upstreamHex)
		}, rule, "resourceUri names sha256:2222"},
		{"no digest", func(t *testing.T, e env, org *keys.Signer) []byte {
			return vsa(vetID, e.ref.Repo()+":0.1.0", "PASSED", upstreamHex)
		}, rule, "names no digest"},
		{"another upstream policy", func(t *testing.T, e env, org *keys.Signer) []byte {
			return vsa(vetID, e.ref.Repo()+"@"+e.desc.Digest.String(), "PASSED", strings.Repeat("3", 64))
		}, rule, "policy digest sha256:3333"},
		{"not a summary", func(t *testing.T, e env, org *keys.Signer) []byte {
			return []byte(`{"verifier":{"id":"` + vetID + `"}}`)
		}, rule, "verification summary: no policy.uri, resourceUri, timeVerified, verifiedLevels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			org, rogue := newKey(t), newKey(t)
			e := pushHello(t, testregistry.New(t).Host(), "vetted/hello", "0.1.0", "")
			mustSign(t, e, org, sign.FormatBundle)
			if tc.write != nil {
				attest(t, e, org, statementWith(e, verify.VerificationSummaryPredicateType, tc.write(t, e, org)))
			}
			// A perfect summary by a key outside the scope is never looked at.
			attest(t, e, rogue, statementWith(e, verify.VerificationSummaryPredicateType, vsa(vetID, e.ref.Repo()+"@"+e.desc.Digest.String(), "PASSED", upstreamHex)))
			res, err := verify.Verify(ctx, e.vt, e.desc, testartifact.SummaryPolicy(t, org, tc.rule))
			if tc.why == "" {
				if err != nil || !res.Summary.Holds || res.Summary.Verifier != vetID {
					t.Fatalf("%v %+v", err, res.Summary)
				}
				return
			}
			if !errors.Is(err, verify.ErrAttestation) || !errors.Is(err, verify.ErrVerification) {
				t.Fatalf("want ErrAttestation, got %v", err)
			}
			for _, want := range []string{`scope ""`, `verifier "` + vetID + `"`, tc.why} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not say %q: %v", want, err)
				}
			}
			if res.Summary == nil || res.Summary.Holds || len(res.Summary.Reasons) == 0 {
				t.Errorf("result: %+v", res.Summary)
			}
		})
	}
}

// TestVerificationSummaryPolicyDigest: the digest covers the requirement
// (verifier, policy digest) and a scope without one keeps the digest it had
// before the field existed (golden: a fixed key, v1alpha1 and v1alpha2
// alike).
func TestVerificationSummaryPolicyDigest(t *testing.T) {
	ctx := context.Background()
	pem, err := os.ReadFile(filepath.Join("testdata", "fixed.pub"))
	if err != nil {
		t.Fatal(err)
	}
	doc := func(api, extra string) string {
		return fmt.Sprintf("apiVersion: %s\nkind: VerificationPolicy\nkeys:\n  - name: k\n    publicKey: |\n        %s\nscopes:\n  - keys: [k]\n%s",
			api, strings.ReplaceAll(strings.TrimSpace(string(pem)), "\n", "\n        "), extra)
	}
	digestOf := func(src string) string {
		p, err := verify.ParsePolicy(ctx, []byte(src), "p.yaml", nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		return p.Digest()
	}
	const before = "sha256:0628a67170b521b61d8293380ab3efad228d8e498e6c9b7ca67562ba9ad2bf46" // computed by the code before the field
	for _, api := range []string{verify.PolicyAPIVersion, verify.PolicyAPIVersionV2} {
		if got := digestOf(doc(api, "")); got != before {
			t.Errorf("%s without a summary: digest %s, want %s (the digest before requireVerificationSummary)", api, got, before)
		}
	}
	seen := map[string]bool{before: true}
	for _, extra := range []string{
		"    requireVerificationSummary:\n      verifier: " + vetID + "\n",
		"    requireVerificationSummary:\n      verifier: https://other.example/vet\n",
		"    requireVerificationSummary:\n      verifier: " + vetID + "\n      policyDigest: " + upstreamD + "\n",
	} {
		d := digestOf(doc(verify.PolicyAPIVersionV2, extra))
		if seen[d] {
			t.Errorf("digest %s not distinct for\n%s", d, extra)
		}
		seen[d] = true
	}
}

// summaryVectors returns the files of specs/testdata/verification-summary/kind.
func summaryVectors(tb testing.TB, kind string) []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "specs", "testdata", "verification-summary", kind, "*.json"))
	if len(files) == 0 {
		tb.Fatalf("no %s verification summary vectors", kind)
	}
	return files
}

// TestVerificationSummaryVectors: every valid VSA predicate decodes (unknown
// fields ignored), every invalid one is refused as malformed.
func TestVerificationSummaryVectors(t *testing.T) {
	for _, kind := range []string{"valid", "invalid"} {
		for _, f := range summaryVectors(t, kind) {
			t.Run(kind+"/"+filepath.Base(f), func(t *testing.T) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				s, err := verify.ParseVerificationSummary(b)
				switch {
				case kind == "valid" && (err != nil || s.Verifier.ID == ""):
					t.Fatalf("%v %+v", err, s)
				case kind == "invalid" && !errors.Is(err, verify.ErrMalformed):
					t.Fatalf("want ErrMalformed, got %v (%+v)", err, s)
				}
			})
		}
	}
}

// FuzzParseVerificationSummary: any predicate decodes or is refused as
// malformed, never a panic; what decodes has what the VSA spec requires,
// and its resource digest, when it has one, is a valid digest. Seeded with
// the spec's vectors.
func FuzzParseVerificationSummary(f *testing.F) {
	for _, kind := range []string{"valid", "invalid"} {
		for _, file := range summaryVectors(f, kind) {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := verify.ParseVerificationSummary(b)
		if err != nil {
			if !errors.Is(err, verify.ErrMalformed) {
				t.Fatalf("error of another class: %v", err)
			}
			return
		}
		if s.Verifier.ID == "" || s.ResourceURI == "" || s.Policy.URI == "" || len(s.VerifiedLevels) == 0 ||
			(s.VerificationResult != verify.VerificationPassed && s.VerificationResult != verify.VerificationFailed) {
			t.Fatalf("accepted an incomplete summary: %+v", s)
		}
		// The digest is what the resourceUri names after its last '@', as
		// written or percent-decoded: never made up or taken from elsewhere.
		if d, err := s.ResourceDigest(); err == nil {
			after := s.ResourceURI[strings.LastIndex(s.ResourceURI, "@")+1:]
			if unescaped, uerr := url.PathUnescape(after); !strings.HasPrefix(after, d.String()) && (uerr != nil || !strings.HasPrefix(unescaped, d.String())) {
				t.Fatalf("resource digest %q is not the one %q names", d, s.ResourceURI)
			}
		}
	})
}

// TestResourceDigest: the digest of a resourceUri — a reference by digest,
// with a query or fragment, or a pkg:oci purl whose version is
// percent-encoded — and the refusals.
func TestResourceDigest(t *testing.T) {
	const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct{ uri, want string }{
		{"registry.example.com/addons/hello@sha256:" + hex, "sha256:" + hex},
		{"registry.example.com/addons/hello@sha256:" + hex + "?x=1#f", "sha256:" + hex},
		{"pkg:oci/hello@sha256%3A" + hex + "?repository_url=registry.example.com/addons", "sha256:" + hex},
		{"registry.example.com/addons/hello:0.1.0", ""},
		{"registry.example.com/addons/hello@sha256:abc", ""},
		{"pkg:oci/hello@sha256%3", ""},
	} {
		got, err := (&verify.VerificationSummary{ResourceURI: tc.uri}).ResourceDigest()
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s: got %s, want a refusal", tc.uri, got)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("%s: got %q, %v; want %s", tc.uri, got, err, tc.want)
		}
	}
}
