package verify_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRoundTrip signs and attests in both formats on both registries and
// verifies with provenance rules.
func TestRoundTrip(t *testing.T) {
	for _, reg := range registries {
		for _, format := range []sign.Format{sign.FormatClassic, sign.FormatBundle} {
			t.Run(reg.Name+"/"+string(format), func(t *testing.T) {
				ctx := context.Background()
				e := pushHello(t, reg.Start(t), "addons/hello", "0.1.0", "")
				k := newKey(t)
				opts := sign.Options{Format: format}
				if _, err := sign.Sign(ctx, e.target, e.desc, k, opts); err != nil {
					t.Fatal(err)
				}
				// Signing twice in the classic scheme adds nothing.
				if format == sign.FormatClassic {
					r, err := sign.Sign(ctx, e.target, e.desc, k, opts)
					if err != nil || !r.Unchanged {
						t.Fatalf("second sign: %+v %v", r, err)
					}
				}
				if _, err := sign.Attest(ctx, e.target, e.desc, k, slsaFor(t, e, "https://ci.example/builder"), opts); err != nil {
					t.Fatal(err)
				}
				p := policyFor(t, k).WithProvenance(verify.ProvenanceRules{
					Required:           true,
					BuilderIDs:         []string{"https://ci.example/*"},
					SourceRepositories: []string{"https://github.com/example/hello"},
				})
				res, err := verify.Verify(ctx, e.vt, e.desc, p)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Verified || len(res.SignedBy) != 1 || res.SignedBy[0] != k.ID() || len(res.Signatures) != 1 || len(res.Attestations) != 1 {
					t.Fatalf("result: %+v", res)
				}
				if a := res.Attestations[0]; a.Format != string(format) || a.PredicateType != verify.ProvenancePredicateType || a.Verdict != verify.Valid {
					t.Fatalf("attestation: %+v", a)
				}
				// A builder outside the policy is refused.
				_, err = verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(verify.ProvenanceRules{BuilderIDs: []string{"https://other"}}))
				wantErr(t, err, verify.ErrProvenance)
				_, err = verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(verify.ProvenanceRules{SourceRepositories: []string{"https://github.com/evil/hello"}}))
				wantErr(t, err, verify.ErrProvenance)
				// Patterns stop at segment boundaries, the same for both
				// rules: the source is github.com/example/hello and the
				// builder https://ci.example/builder.
				for _, r := range []verify.ProvenanceRules{
					{SourceRepositories: []string{"https://github.com/exampl/*"}},
					{SourceRepositories: []string{"https://github.com/exampl*"}},
					{SourceRepositories: []string{"https://github.com/*"}},
					{BuilderIDs: []string{"https://ci.exampl/*"}},
					{BuilderIDs: []string{"https://ci.ex*"}},
				} {
					_, err = verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(r))
					wantErr(t, err, verify.ErrProvenance)
				}
				for _, r := range []verify.ProvenanceRules{
					{SourceRepositories: []string{"https://github.com/example/*"}, BuilderIDs: []string{"https://ci.example/*"}},
					{SourceRepositories: []string{"HTTPS://GitHub.com/example/**"}, BuilderIDs: []string{"https://*.example/builder"}},
				} {
					if _, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(r)); err != nil {
						t.Fatalf("%+v: %v", r, err)
					}
				}
			})
		}
	}
}

func wantErr(t *testing.T, err error, target error) {
	t.Helper()
	if !errors.Is(err, verify.ErrVerification) || !errors.Is(err, target) {
		t.Fatalf("got %v, want %v (and ErrVerification)", err, target)
	}
	var ve *verify.Error
	if !errors.As(err, &ve) || ve.Digest == "" || !strings.Contains(err.Error(), ve.Digest.String()) {
		t.Fatalf("error does not name the digest: %v", err)
	}
}

func TestRejections(t *testing.T) {
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			ctx := context.Background()
			host := reg.Start(t)
			k, other := newKey(t), newKey(t)

			t.Run("unsigned", func(t *testing.T) {
				e := pushHello(t, host, "addons/unsigned", "1", "")
				_, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k))
				wantErr(t, err, verify.ErrUnsigned)
			})
			t.Run("wrong key", func(t *testing.T) {
				e := pushHello(t, host, "addons/wrongkey", "1", "")
				mustSign(t, e, other, sign.FormatClassic)
				mustSign(t, e, other, sign.FormatBundle)
				res, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k))
				wantErr(t, err, verify.ErrUntrusted)
				wantErr(t, err, verify.ErrThreshold)
				if len(res.Signatures) != 2 || res.Signatures[0].Verdict != verify.Invalid || res.Signatures[0].Reason == "" {
					t.Fatalf("%+v", res.Signatures)
				}
			})
			t.Run("tampered and re-pushed under the same tag", func(t *testing.T) {
				e := pushHello(t, host, "addons/tampered", "1", "")
				mustSign(t, e, k, sign.FormatClassic)
				evil := pushHello(t, host, "addons/tampered", "1", "evil")
				if evil.desc.Digest == e.desc.Digest {
					t.Fatal("same digest")
				}
				_, err := verify.Verify(ctx, evil.vt, evil.desc, policyFor(t, k))
				wantErr(t, err, verify.ErrUnsigned)
			})
			t.Run("signature copied onto another digest", func(t *testing.T) {
				a := pushHello(t, host, "addons/copied", "a", "")
				b := pushHello(t, host, "addons/copied", "b", "other")
				mustSign(t, a, k, sign.FormatClassic)
				copyTag(t, a, sign.CosignTag(a.desc, "sig"), sign.CosignTag(b.desc, "sig"))
				_, err := verify.Verify(ctx, b.vt, b.desc, policyFor(t, k))
				wantErr(t, err, verify.ErrDigestClaim)
				// And the original still verifies.
				if _, err := verify.Verify(ctx, a.vt, a.desc, policyFor(t, k)); err != nil {
					t.Fatal(err)
				}
			})
			t.Run("attestation about another digest", func(t *testing.T) {
				a := pushHello(t, host, "addons/attsubject", "a", "")
				b := pushHello(t, host, "addons/attsubject", "b", "other")
				mustSign(t, b, k, sign.FormatClassic)
				mustSign(t, a, k, sign.FormatClassic)
				if _, err := sign.Attest(ctx, a.target, a.desc, k, slsaFor(t, a, ""), sign.Options{}); err != nil {
					t.Fatal(err)
				}
				copyTag(t, a, sign.CosignTag(a.desc, "att"), sign.CosignTag(b.desc, "att"))
				_, err := verify.Verify(ctx, b.vt, b.desc, policyFor(t, k).WithProvenance(verify.ProvenanceRules{Required: true}))
				wantErr(t, err, verify.ErrDigestClaim)
				wantErr(t, err, verify.ErrProvenance)
				// Attest refuses a statement about another digest outright.
				if _, err := sign.Attest(ctx, b.target, b.desc, k, slsaFor(t, a, ""), sign.Options{}); !errors.Is(err, sign.ErrSign) {
					t.Fatalf("attest with foreign subject: %v", err)
				}
			})
			t.Run("wrong predicate type", func(t *testing.T) {
				e := pushHello(t, host, "addons/predtype", "1", "")
				mustSign(t, e, k, sign.FormatClassic)
				sbom := statementFor(e, "https://spdx.dev/Document")
				if _, err := sign.Attest(ctx, e.target, e.desc, k, sbom, sign.Options{}); err != nil {
					t.Fatal(err)
				}
				_, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(verify.ProvenanceRules{Required: true}))
				wantErr(t, err, verify.ErrProvenance)
				// A required predicate type that is present passes.
				if _, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(verify.ProvenanceRules{PredicateTypes: []string{"https://spdx.dev/Document"}})); err != nil {
					t.Fatal(err)
				}
				// The storage annotation lying about the statement's type.
				relabel(t, e, "https://slsa.dev/provenance/v1")
				_, err = verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(verify.ProvenanceRules{Required: true}))
				wantErr(t, err, verify.ErrPredicateType)
			})
			t.Run("wrong payload type", func(t *testing.T) {
				e := pushHello(t, host, "addons/payloadtype", "1", "")
				pushRawSignature(t, e, k, `{"critical":{"identity":{"docker-reference":"x"},"image":{"docker-manifest-digest":"`+e.desc.Digest.String()+`"},"type":"atomic container signature"},"optional":null}`)
				_, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k))
				wantErr(t, err, verify.ErrPayloadType)
			})
			t.Run("key outside its validity window", func(t *testing.T) {
				e := pushHello(t, host, "addons/window", "1", "")
				mustSign(t, e, k, sign.FormatClassic)
				p := windowPolicy(t, k, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
				_, err := verify.Verify(ctx, e.vt, e.desc, p)
				wantErr(t, err, verify.ErrKeyWindow)
				if _, err := verify.Verify(ctx, e.vt, e.desc, p, verify.WithTime(time.Now().Add(-36*time.Hour))); err != nil {
					t.Fatalf("inside the window: %v", err)
				}
			})
			t.Run("threshold not met", func(t *testing.T) {
				e := pushHello(t, host, "addons/threshold", "1", "")
				mustSign(t, e, k, sign.FormatClassic)
				p := thresholdPolicy(t, 2, k, other)
				_, err := verify.Verify(ctx, e.vt, e.desc, p)
				wantErr(t, err, verify.ErrThreshold)
				mustSign(t, e, other, sign.FormatBundle)
				res, err := verify.Verify(ctx, e.vt, e.desc, p)
				if err != nil || len(res.SignedBy) != 2 {
					t.Fatalf("two keys signed: %+v %v", res, err)
				}
			})
			t.Run("more signatures than the cap", func(t *testing.T) {
				e := pushHello(t, host, "addons/cap", "1", "")
				for range 4 {
					mustSign(t, e, newKey(t), sign.FormatClassic)
				}
				mustSign(t, e, k, sign.FormatClassic)
				p := policyFor(t, k).WithLimits(verify.Limits{MaxSignatures: 3})
				_, err := verify.Verify(ctx, e.vt, e.desc, p)
				wantErr(t, err, verify.ErrTooMany)
				if _, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k)); err != nil {
					t.Fatal(err)
				}
			})
			t.Run("blob over the size cap", func(t *testing.T) {
				e := pushHello(t, host, "addons/size", "1", "")
				mustSign(t, e, k, sign.FormatClassic)
				_, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithLimits(verify.Limits{MaxBlobSize: 10}))
				wantErr(t, err, verify.ErrBlobTooLarge)
			})
		})
	}
}

func mustSign(t *testing.T, e env, k *keys.Signer, f sign.Format) {
	t.Helper()
	if _, err := sign.Sign(context.Background(), e.target, e.desc, k, sign.Options{Format: f}); err != nil {
		t.Fatal(err)
	}
}
