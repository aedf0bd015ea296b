package verify_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestKeylessRoundTrip: keyless bundle and classic signatures and a classic
// keyless provenance attestation verify offline against the pinned root, on
// both registries (referrers API and the referrers tag schema).
func TestKeylessRoundTrip(t *testing.T) {
	for _, reg := range registries {
		for _, format := range []sign.Format{sign.FormatBundle, sign.FormatClassic} {
			t.Run(reg.Name+"/"+string(format), func(t *testing.T) {
				ctx := context.Background()
				w := newSigstoreWorld(t, testsigstore.RootOptions{})
				e := pushHello(t, reg.Start(t), "addons/hello", "0.1.0", "")
				id := release.Identity()
				if format == sign.FormatBundle {
					w.signBundle(t, e, id, e.desc.Digest.String(), testsigstore.SignOptions{})
				} else {
					w.signClassic(t, e, id, testsigstore.SignOptions{})
				}
				att, err := w.ss.ClassicAttestation(id, slsaFor(t, e, id.Extensions.BuildSignerURI), verify.ProvenancePredicateType, testsigstore.SignOptions{})
				if err != nil {
					t.Fatal(err)
				}
				writeClassic(t, e, att)
				p := keylessPolicy(t, 1, w.workflowIdentity("release")).WithProvenance(verify.ProvenanceRules{
					BuilderIDs: []string{"https://github.com/example/hello/.github/workflows/release.yml@refs/tags/*"},
				})
				res, err := verify.Verify(ctx, e.vt, e.desc, p)
				if err != nil {
					t.Fatal(err)
				}
				s := res.Signatures[0]
				if !res.Verified || len(res.SignedBy) != 1 || s.IdentityName != "release" || s.Identity == nil ||
					s.Identity.Subject != id.URI || s.Identity.Issuer != testsigstore.GitHubActionsIssuer ||
					s.Identity.Extensions == nil || s.Identity.Extensions.SourceRepositoryRef != "refs/tags/v0.1.0" {
					t.Fatalf("result: %+v signature %+v", res, s)
				}
				if a := res.Attestations[0]; a.Verdict != verify.Valid || a.Identity == nil {
					t.Fatalf("attestation: %+v", a)
				}
			})
		}
	}
}

// refuse verifies e under p and demands a failure matching want whose
// message says why.
func refuse(t *testing.T, e env, p *verify.Policy, want error, says string) {
	t.Helper()
	res, err := verify.Verify(context.Background(), e.vt, e.desc, p)
	if !errors.Is(err, want) || !errors.Is(err, verify.ErrVerification) {
		t.Fatalf("want %v, got %v", want, err)
	}
	if !strings.Contains(err.Error(), says) {
		t.Fatalf("message does not say %q: %v", says, err)
	}
	if res == nil || res.Verified {
		t.Fatalf("result: %+v", res)
	}
	t.Log(err)
}

func keylessEnv(t *testing.T) (sigstoreWorld, env) {
	t.Helper()
	return newSigstoreWorld(t, testsigstore.RootOptions{}), pushHello(t, testregistryHost(t), "addons/hello", "0.1.0", "")
}

func TestKeylessRefusesWrongSubject(t *testing.T) {
	w, e := keylessEnv(t)
	other := testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/heads/main", Workflow: ".github/workflows/release.yml"}
	w.signBundle(t, e, other.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{})
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrIdentity,
		`subject "https://github.com/example/hello/.github/workflows/release.yml@refs/heads/main" matches none`)
}

func TestKeylessRefusesWrongIssuer(t *testing.T) {
	w, e := keylessEnv(t)
	id := release.Identity()
	id.Extensions.Issuer = "https://gitlab.com"
	w.signBundle(t, e, id, e.desc.Digest.String(), testsigstore.SignOptions{})
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrIdentity, `issuer "https://gitlab.com"`)
}

func TestKeylessRefusesWrongExtension(t *testing.T) {
	w, e := keylessEnv(t)
	fork := testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/tags/v0.1.0", Trigger: "pull_request_target"}
	w.signBundle(t, e, fork.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{})
	id := w.workflowIdentity("release")
	id.Extensions.GithubWorkflowTrigger = "push"
	refuse(t, e, keylessPolicy(t, 1, id), verify.ErrIdentity, `pull_request_target`)
}

func TestKeylessRefusesCertificateOutsideValidityAtSigningTime(t *testing.T) {
	w, e := keylessEnv(t)
	// The certificate expired before the log integrated the signature.
	at := w.ss.Start.Add(12 * 60 * 60 * 1e9)
	w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{At: at,
		Cert: testsigstore.CertOptions{NotBefore: at.Add(-20 * 60 * 1e9), NotAfter: at.Add(-10 * 60 * 1e9)}})
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrKeyless, "outside certificate validity")
}

func TestKeylessRefusesCAOutsideItsValidityAtSigningTime(t *testing.T) {
	// The root declares the CA valid until an hour ago; the logs and the
	// TSA stay valid.
	now := time.Now()
	ss, err := testsigstore.New(testsigstore.WithCAValidity(now.Add(-48*time.Hour), now.Add(-time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	w := rootOf(t, ss, testsigstore.RootOptions{})
	e := pushHello(t, testregistryHost(t), "addons/hello", "0.1.0", "")
	w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{At: now})
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrKeyless, "when none of the root's certificate authorities was valid")
}

func TestKeylessRefusesLogEntrySignedByAnotherKey(t *testing.T) {
	w, e := keylessEnv(t)
	w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{ForeignLog: true})
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrKeyless, "signed entry timestamp does not verify with the root's Rekor keys")
}

func TestKeylessRefusesMissingTimestampTheRootRequires(t *testing.T) {
	w, e := keylessEnv(t)
	w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{NoTimestamp: true})
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrKeyless, "no RFC 3161 timestamp, and the root lists timestamping authorities")
	// A root without timestamping authorities does not require one.
	noTSA := rootOf(t, w.ss, testsigstore.RootOptions{WithoutTSA: true})
	if _, err := verify.Verify(context.Background(), e.vt, e.desc, keylessPolicy(t, 1, noTSA.workflowIdentity("release"))); err != nil {
		t.Fatal(err)
	}
}

func TestKeylessRefusesMissingLogEntryTheRootRequires(t *testing.T) {
	w, e := keylessEnv(t)
	w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{NoTlog: true})
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrKeyless, "no transparency-log entry, and the root lists Rekor logs")
}

func TestKeylessRefusesBundleForAnotherDigest(t *testing.T) {
	w, e := keylessEnv(t)
	w.signBundle(t, e, release.Identity(), "sha256:"+strings.Repeat("0", 64), testsigstore.SignOptions{})
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrKeyless, "artifact digest does not match any digest in statement")
}

func TestKeylessRefusesClassicPayloadForAnotherDigest(t *testing.T) {
	w, e := keylessEnv(t)
	sig, err := w.ss.ClassicSignature(release.Identity(), e.ref.Repo(), "sha256:"+strings.Repeat("0", 64), testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	writeClassic(t, e, sig)
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrDigestClaim, "identity release signed it")
}

func TestKeylessRefusesUnderAKeyOnlyPolicy(t *testing.T) {
	w, e := keylessEnv(t)
	w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{})
	refuse(t, e, policyFor(t, newKey(t)), verify.ErrUntrusted, "trusts no identities")
}

func TestKeylessRefusesMessageSignatureBundle(t *testing.T) {
	w, e := keylessEnv(t)
	b, err := w.ss.MessageBundle(release.Identity(), testsigstore.SimpleSigning(e.ref.Repo(), e.desc.Digest.String()), testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := testsigstore.WriteBundle(context.Background(), e.ref.WithDigest(e.desc.Digest).String(), b, testsigstore.CosignSignPredicate); err != nil {
		t.Fatal(err)
	}
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrPayloadType, "message signature")
}

// TestKeylessOneIdentityCountsOnce: the same certificate identity signing
// twice, matched by two policy identities, is one signer.
func TestKeylessOneIdentityCountsOnce(t *testing.T) {
	w, e := keylessEnv(t)
	w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{})
	w.signClassic(t, e, release.Identity(), testsigstore.SignOptions{})
	broad := w.workflowIdentity("any-tag")
	exact := w.workflowIdentity("v0.1.0")
	exact.SubjectRegexp, exact.Subject = "", release.Identity().URI
	refuse(t, e, keylessPolicy(t, 2, broad, exact), verify.ErrThreshold, "1 of the required 2")
	// A second, distinct identity makes two signers.
	maintainer := testsigstore.Email("maintainer@example.com", testsigstore.GoogleIssuer)
	w.signBundle(t, e, maintainer, e.desc.Digest.String(), testsigstore.SignOptions{})
	m := verify.Identity{Name: "maintainer", Root: w.root, Issuer: testsigstore.GoogleIssuer, Subject: "maintainer@example.com"}
	res, err := verify.Verify(context.Background(), e.vt, e.desc, keylessPolicy(t, 2, broad, m))
	if err != nil || len(res.SignedBy) != 2 {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestKeysAndIdentitiesCountAlike: a key and an identity make a threshold
// of two.
func TestKeysAndIdentitiesCountAlike(t *testing.T) {
	w, e := keylessEnv(t)
	w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), testsigstore.SignOptions{})
	k := newKey(t)
	if _, err := sign.Sign(context.Background(), e.target, e.desc, k, sign.Options{}); err != nil {
		t.Fatal(err)
	}
	kp := policyFor(t, k)
	p, err := verify.PolicyFromKeys(context.Background(), nil, verify.KeyOptions{Identities: []verify.Identity{w.workflowIdentity("release")}, Threshold: 2})
	if err == nil {
		t.Fatalf("threshold 2 with one identity accepted: %v", p)
	}
	both := &verify.Policy{Scopes: []verify.Scope{{Keys: kp.Scopes[0].Keys, Identities: []verify.Identity{w.workflowIdentity("release")}, Threshold: 2}}}
	res, err := verify.Verify(context.Background(), e.vt, e.desc, both)
	if err != nil || len(res.SignedBy) != 2 {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestKeylessProvenanceBuilderCrossCheck: a GitHub-signed provenance that
// names another workflow as its builder is refused, even when the policy's
// builder pattern would accept that workflow.
func TestKeylessProvenanceBuilderCrossCheck(t *testing.T) {
	w, e := keylessEnv(t)
	id := release.Identity()
	w.signBundle(t, e, id, e.desc.Digest.String(), testsigstore.SignOptions{})
	other := "https://github.com/example/hello/.github/workflows/other.yml@refs/tags/v0.1.0"
	att, err := w.ss.ClassicAttestation(id, slsaFor(t, e, other), verify.ProvenancePredicateType, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	writeClassic(t, e, att)
	p := keylessPolicy(t, 1, w.workflowIdentity("release")).WithProvenance(verify.ProvenanceRules{
		BuilderIDs: []string{"https://github.com/example/hello/.github/workflows/*"},
	})
	refuse(t, e, p, verify.ErrProvenance, "is not the workflow that signed it")
}

// TestKeylessRefusesTooManyLogEntries: a bundle repeating a valid log entry
// gets no more signed entry timestamp checks out of the verifier than
// sigstore-go allows (32): since sigstore-go v1.2 its bundle parser refuses
// it as malformed, before any check (precheck's own bound stays, for
// classic layers, which do not go through that parser).
func TestKeylessRefusesTooManyLogEntries(t *testing.T) {
	w, e := keylessEnv(t)
	stmt, err := testsigstore.Statement(e.ref.Repo(), e.desc.Digest.String(), testsigstore.CosignSignPredicate, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.ss.DSSEBundle(release.Identity(), stmt, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	vm := doc["verificationMaterial"].(map[string]any)
	entry := vm["tlogEntries"].([]any)[0]
	vm["tlogEntries"] = slices.Repeat([]any{entry}, 33)
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := testsigstore.WriteBundle(context.Background(), e.ref.WithDigest(e.desc.Digest).String(), b, testsigstore.CosignSignPredicate); err != nil {
		t.Fatal(err)
	}
	refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrMalformed, "too many tlog entries: 33 > 32")
}

// TestKeylessClassicAttestationUnderATimestampOnlyRoot: under a root with
// timestamping authorities and no Rekor log, a classic keyless attestation
// (cosign timestamps its envelope) verifies with the certificate checked at
// the timestamp's verified time; a timestamp outside the certificate's
// validity is refused, however valid the certificate is now.
func TestKeylessClassicAttestationUnderATimestampOnlyRoot(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	w := rootOf(t, ss, testsigstore.RootOptions{WithoutRekor: true})
	if r := w.root.Requirements(); r.TransparencyLog || !r.Timestamp {
		t.Fatalf("root requirements: %+v", r)
	}
	id := release.Identity()
	p := keylessPolicy(t, 1, w.workflowIdentity("release")).WithProvenance(verify.ProvenanceRules{Required: true})
	// In the refused case the certificate expired ten minutes before the
	// time the TSA proves (which is inside the root's validity).
	at := ss.Start.Add(12 * time.Hour)
	for _, c := range []struct {
		name string
		o    testsigstore.SignOptions
		ok   bool
	}{
		{"logged", testsigstore.SignOptions{}, true},
		{"timestamp only", testsigstore.SignOptions{NoTlog: true}, true},
		{"certificate expired at the timestamp", testsigstore.SignOptions{NoTlog: true, At: at,
			Cert: testsigstore.CertOptions{NotBefore: at.Add(-20 * time.Minute), NotAfter: at.Add(-10 * time.Minute)}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := pushHello(t, testregistryHost(t), "addons/hello", "0.1.0", "")
			w.signClassic(t, e, id, testsigstore.SignOptions{NoTlog: true})
			att, err := ss.ClassicAttestation(id, slsaFor(t, e, id.Extensions.BuildSignerURI), verify.ProvenancePredicateType, c.o)
			if err != nil {
				t.Fatal(err)
			}
			writeClassic(t, e, att)
			if !c.ok {
				refuse(t, e, p, verify.ErrProvenance, "leaf certificate verification failed")
				return
			}
			res, err := verify.Verify(context.Background(), e.vt, e.desc, p)
			if err != nil {
				t.Fatal(err)
			}
			if a := res.Attestations[0]; a.Verdict != verify.Valid || a.Identity == nil || a.Identity.Subject != id.URI {
				t.Fatalf("attestation: %+v", a)
			}
		})
	}
}
