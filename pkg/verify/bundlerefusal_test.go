package verify_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sigstore/cosign/v2/pkg/cosign/bundle"
	"github.com/sigstore/cosign/v2/pkg/types"
	"github.com/sigstore/sigstore/pkg/signature/dsse"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// The refusals of bundle referrers that cosign v3 writes by default, each
// on both registries (the referrers API, and the referrers tag schema of
// distribution 2.8): a bundle for another digest, a statement whose
// predicateType is not its referrer's annotation or not what the policy
// asks for, and broken or foreign bundles beside a valid signature, which
// neither hide it nor count as a second one.

const (
	slsaType      = "https://slsa.dev/provenance/v1"
	cyclonedxType = "https://cyclonedx.org/bom"
	customType    = "https://cosign.sigstore.dev/attestation/v1"
)

// keyBundle is a Sigstore bundle v0.3 signed by k over stmt (a DSSE
// envelope, public key hint), as addonpack and cosign v3 make them.
func keyBundle(t *testing.T, k *keys.Signer, stmt []byte) []byte {
	t.Helper()
	env, err := dsse.WrapSigner(k, types.IntotoPayloadType).SignMessage(bytes.NewReader(stmt))
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.MakeNewBundle(k.Public(), nil, stmt, env, k.PublicPEM(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// storeBundle attaches b to e's digest as a bundle referrer annotated with
// predicateType, with cosign's own writer.
func storeBundle(t *testing.T, e env, b []byte, predicateType string) {
	t.Helper()
	if err := testsigstore.WriteBundle(context.Background(), e.ref.WithDigest(e.desc.Digest).String(), b, predicateType); err != nil {
		t.Fatal(err)
	}
}

// signStatement is the statement of a cosign v3 bundle signature of e.
func signStatement(e env) []byte { return statementFor(e, sign.CosignSignPredicateType) }

// wantRefused checks a refusal: the class (errdef.ErrVerification, which
// decides the exit code), the reason, and that the message names the digest
// and what was refused.
func wantRefused(t *testing.T, res *verify.Result, err error, reason error, names ...string) {
	t.Helper()
	wantErr(t, err, reason)
	if errdef.ClassOf(err) != errdef.ErrVerification {
		t.Errorf("class %v, want %v", errdef.ClassOf(err), errdef.ErrVerification)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("the refusal does not name %q:\n%v", n, err)
		}
	}
	if res == nil || res.Verified {
		t.Fatalf("result %+v: want a refusal", res)
	}
}

// TestBundleForAnotherDigestRefused: a bundle whose statement names another
// artifact, copied as a referrer of this one, is refused — as a signature,
// as an attestation, and with a statement naming both or no digest — and
// does not count as a signature.
func TestBundleForAnotherDigestRefused(t *testing.T) {
	for _, reg := range registries {
		host := reg.Start(t)
		a := pushHello(t, host, "addons/hello", "0.1.0", "another revision") // another digest
		k := newKey(t)
		for _, tc := range []struct {
			name, annotation string
			stmt             []byte
		}{
			{"signature of the other digest", sign.CosignSignPredicateType, signStatement(a)},
			{"provenance of the other digest", slsaType, statementFor(a, slsaType)},
			{"statement without subject", sign.CosignSignPredicateType,
				[]byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[],"predicateType":"` + sign.CosignSignPredicateType + `","predicate":{}}`)},
			{"subject of another algorithm", sign.CosignSignPredicateType,
				[]byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha512":"` + strings.Repeat("ab", 64) + `"}}],"predicateType":"` + sign.CosignSignPredicateType + `","predicate":{}}`)},
		} {
			t.Run(reg.Name+"/"+tc.name, func(t *testing.T) {
				e := pushHello(t, host, "addons/"+strings.ReplaceAll(tc.name, " ", "-")+"/hello", "0.1.0", "")
				storeBundle(t, e, keyBundle(t, k, tc.stmt), tc.annotation)
				p := policyFor(t, k)
				if tc.annotation == slsaType {
					// A valid signature, so that only the provenance is missing.
					if _, err := sign.Sign(context.Background(), e.target, e.desc, k, sign.Options{Format: sign.FormatBundle}); err != nil {
						t.Fatal(err)
					}
					p = p.WithProvenance(verify.ProvenanceRules{Required: true})
				}
				res, err := verify.Verify(context.Background(), e.vt, e.desc, p)
				want := verify.ErrThreshold
				if tc.annotation == slsaType {
					want = verify.ErrProvenance
				}
				wantRefused(t, res, err, want, e.desc.Digest.String())
				if !errors.Is(err, verify.ErrDigestClaim) {
					t.Errorf("refusal is not a digest claim: %v", err)
				}
				for _, c := range append(res.Signatures, res.Attestations...) {
					if c.Format == string(sign.FormatBundle) && c.PredicateType == tc.annotation && c.Verdict == verify.Valid && tc.annotation != sign.CosignSignPredicateType {
						t.Errorf("the foreign bundle counted: %+v", c)
					}
				}
			})
		}
	}
}

// TestBundlePredicateTypeRefused (GHSA-w6c6-c85g-mmv6: who verifies
// through a library checks the predicateType itself): the DSSE statement's
// predicateType must equal the referrer's annotation, and what the policy
// asks for is looked up in the statement, not the annotation.
func TestBundlePredicateTypeRefused(t *testing.T) {
	for _, reg := range registries {
		host := reg.Start(t)
		k := newKey(t)
		for i, tc := range []struct {
			name, statement, annotation string
			rules                       verify.ProvenanceRules
			want                        error
		}{
			{"SBOM annotated as provenance", cyclonedxType, slsaType, verify.ProvenanceRules{Required: true}, verify.ErrPredicateType},
			{"custom predicate annotated as provenance", customType, slsaType, verify.ProvenanceRules{Required: true}, verify.ErrPredicateType},
			{"signature statement annotated as provenance", sign.CosignSignPredicateType, slsaType, verify.ProvenanceRules{Required: true}, verify.ErrPredicateType},
			{"provenance annotated as SBOM, SBOM required", slsaType, cyclonedxType, verify.ProvenanceRules{PredicateTypes: []string{cyclonedxType}}, verify.ErrPredicateType},
			// Annotated as a signature, it is checked as one and refused
			// there (see the candidate's reason below); the verdict's reason
			// is the provenance it did not provide.
			{"provenance annotated as a signature", slsaType, sign.CosignSignPredicateType, verify.ProvenanceRules{Required: true}, verify.ErrProvenance},
			{"custom predicate where the policy asks for provenance", customType, customType, verify.ProvenanceRules{Required: true}, verify.ErrProvenance},
			{"SBOM where the policy asks for a custom predicate", cyclonedxType, cyclonedxType, verify.ProvenanceRules{PredicateTypes: []string{customType}}, verify.ErrAttestation},
		} {
			t.Run(reg.Name+"/"+tc.name, func(t *testing.T) {
				ctx := context.Background()
				e := pushHello(t, host, "addons/p"+string(rune('a'+i))+"/hello", "0.1.0", "")
				// A valid bundle signature: only the attestation is wrong.
				if _, err := sign.Sign(ctx, e.target, e.desc, k, sign.Options{Format: sign.FormatBundle}); err != nil {
					t.Fatal(err)
				}
				stmt := statementFor(e, tc.statement)
				if tc.statement == slsaType {
					stmt = slsaFor(t, e, "https://ci.example/builder")
				}
				storeBundle(t, e, keyBundle(t, k, stmt), tc.annotation)
				res, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(tc.rules))
				names := []string{e.desc.Digest.String()}
				if tc.want == verify.ErrPredicateType {
					names = append(names, tc.statement, tc.annotation)
				}
				wantRefused(t, res, err, tc.want, names...)
				valid, mismatch := 0, false
				for _, c := range append(res.Signatures, res.Attestations...) {
					switch {
					case c.Kind == "signature" && c.Verdict == verify.Valid:
						valid++
					case c.Verdict == verify.Invalid && strings.Contains(c.Reason, "statement says \""+tc.statement+"\", storage says \""+tc.annotation+"\""):
						mismatch = true
					}
				}
				if tc.statement != tc.annotation && !mismatch {
					t.Errorf("no candidate refused for its predicateType %s annotated %s: %+v", tc.statement, tc.annotation, res)
				}
				if valid != 1 {
					t.Errorf("%d valid signatures, want the one bundle signature: %+v", valid, res.Signatures)
				}
			})
		}
	}
}

// TestBrokenBundleNeverHidesNorCounts: a valid signature, classic or
// bundle, beside an unreadable, foreign, untrusted or mislabelled bundle
// still verifies, reported as exactly one valid signature; with a
// threshold of two keys, a bundle of the second key for another digest
// does not make up the second signature.
func TestBrokenBundleNeverHidesNorCounts(t *testing.T) {
	for _, reg := range registries {
		host := reg.Start(t)
		k, stranger, outsider := newKey(t), newKey(t), newKey(t)
		other := pushHello(t, host, "addons/other/hello", "0.1.0", "other")
		broken := []struct {
			name string
			make func(e env) ([]byte, string)
		}{
			{"not JSON", func(env) ([]byte, string) { return []byte("not a bundle"), sign.CosignSignPredicateType }},
			{"another media type", func(env) ([]byte, string) {
				return []byte(`{"mediaType":"application/vnd.example+json"}`), sign.CosignSignPredicateType
			}},
			{"signed by an untrusted key", func(e env) ([]byte, string) {
				return keyBundle(t, outsider, signStatement(e)), sign.CosignSignPredicateType
			}},
			{"for another digest", func(env) ([]byte, string) {
				return keyBundle(t, k, signStatement(other)), sign.CosignSignPredicateType
			}},
			{"envelope altered after signing", func(e env) ([]byte, string) {
				b := keyBundle(t, k, signStatement(e))
				return bytes.Replace(b, []byte(`"payloadType":"application/vnd.in-toto+json"`), []byte(`"payloadType":"application/vnd.in-toto+jsom"`), 1), sign.CosignSignPredicateType
			}},
		}
		for _, valid := range []sign.Format{sign.FormatClassic, sign.FormatBundle} {
			for i, bb := range broken {
				t.Run(reg.Name+"/"+string(valid)+"/"+bb.name, func(t *testing.T) {
					ctx := context.Background()
					e := pushHello(t, host, "addons/"+string(valid)+string(rune('a'+i))+"/hello", "0.1.0", "")
					b, pt := bb.make(e)
					storeBundle(t, e, b, pt)
					if _, err := sign.Sign(ctx, e.target, e.desc, k, sign.Options{Format: valid}); err != nil {
						t.Fatal(err)
					}
					res, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k))
					if err != nil {
						t.Fatalf("a %s bundle hid the valid %s signature: %v", bb.name, valid, err)
					}
					var ok, bad int
					for _, c := range res.Signatures {
						switch {
						case c.Verdict == verify.Valid && c.Format == string(valid):
							ok++
						case c.Verdict == verify.Invalid && c.Format == string(sign.FormatBundle) && c.Reason != "":
							bad++
						default:
							t.Errorf("unexpected signature %+v", c)
						}
					}
					if ok != 1 || bad != 1 || len(res.SignedBy) != 1 {
						t.Fatalf("want exactly one valid signature and the broken bundle reported invalid: %+v", res)
					}
					// The second key's bundle for another digest does not
					// meet a threshold of two.
					storeBundle(t, e, keyBundle(t, stranger, signStatement(other)), sign.CosignSignPredicateType)
					res, err = verify.Verify(ctx, e.vt, e.desc, thresholdPolicy(t, 2, k, stranger))
					wantRefused(t, res, err, verify.ErrThreshold, e.desc.Digest.String(), "1 of the required 2")
				})
			}
		}
	}
}
