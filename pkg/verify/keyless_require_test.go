package verify_test

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestKeylessRequireInclusionProof: a policy may demand more than its root
// derives. A classic keyless signature (its log entry proven by a signed
// entry timestamp only) verifies under the root alone, and is refused once
// the policy demands an inclusion proof; a bundle carrying one still
// verifies.
func TestKeylessRequireInclusionProof(t *testing.T) {
	w, e := keylessEnv(t)
	w.signClassic(t, e, release.Identity(), testsigstore.SignOptions{})
	if _, err := verify.Verify(context.Background(), e.vt, e.desc, keylessPolicy(t, 1, w.workflowIdentity("release"))); err != nil {
		t.Fatalf("without require: %v", err)
	}
	strict, err := w.root.Require([]string{verify.RequireInclusionProof})
	if err != nil {
		t.Fatal(err)
	}
	if r := w.root.Requirements(); r.InclusionProof {
		t.Fatal("Require changed the root it was called on")
	}
	id := w.workflowIdentity("release")
	id.Root = strict
	refuse(t, e, keylessPolicy(t, 1, id), verify.ErrKeyless, "the policy requires one (require: inclusionProof)")

	b := pushHello(t, testregistryHost(t), "addons/hello", "0.1.0", "")
	w.signBundle(t, b, release.Identity(), b.desc.Digest.String(), testsigstore.SignOptions{})
	if _, err := verify.Verify(context.Background(), b.vt, b.desc, keylessPolicy(t, 1, id)); err != nil {
		t.Fatalf("a bundle with an inclusion proof under require: inclusionProof: %v", err)
	}
}

// TestKeylessRequireRefusesWhatTheRootCannotCheck: demanding a check the
// root cannot make is an invalid policy, naming the root and the check,
// never a policy that silently verifies less than it says.
func TestKeylessRequireRefusesWhatTheRootCannotCheck(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		root  testsigstore.RootOptions
		check string
		says  string
	}{
		{testsigstore.RootOptions{WithoutTSA: true}, verify.RequireTimestamp, "require: timestamp, but the root"},
		{testsigstore.RootOptions{WithoutRekor: true}, verify.RequireInclusionProof, "lists no Rekor logs"},
		{testsigstore.RootOptions{WithoutRekor: true}, verify.RequireTransparencyLog, "lists no Rekor logs"},
		{testsigstore.RootOptions{WithoutCTLog: true}, verify.RequireSCT, "lists no CT logs"},
		{testsigstore.RootOptions{}, "signedByMars", `unknown check "signedByMars"`},
	} {
		t.Run(c.check, func(t *testing.T) {
			w := rootOf(t, ss, c.root)
			_, err := w.root.Require([]string{c.check})
			if !errors.Is(err, verify.ErrPolicy) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), `trusted root "test"`) {
				t.Fatalf("want ErrPolicy naming the root and saying %q, got %v", c.says, err)
			}
		})
	}
	_, err = verify.LoadPolicy(context.Background(), vector("invalid", "require-timestamp-without-tsa.yaml"), nil)
	for _, says := range []string{"require-timestamp-without-tsa.yaml", `trusted root "no-tsa": require: timestamp`, "no timestamping authorities"} {
		if !errors.Is(err, verify.ErrPolicy) || !strings.Contains(err.Error(), says) {
			t.Fatalf("want an invalid policy saying %q, got %v", says, err)
		}
	}
}

// TestKeylessRequireDigest: the policy digest covers require, and a policy
// without it keeps the digest it had before the field existed (a verified-
// digest cache stays valid across the upgrade).
func TestKeylessRequireDigest(t *testing.T) {
	p, err := verify.LoadPolicy(context.Background(), vector("valid", "keyless.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Digest(); got != "sha256:4d6ba3900807664ba9c79dfe045f9e5ad36baa67e47ba4bbc4a81565e0f91478" {
		t.Fatalf("a keyless policy without require changed its digest: %s", got)
	}
	seen := map[string]string{p.Digest(): "none"}
	for _, req := range []string{"[timestamp]", "[inclusionProof]", "[inclusionProof, timestamp]"} {
		q := keylessRequiring(t, req)
		if prev, dup := seen[q.Digest()]; dup {
			t.Fatalf("require %s has the digest of require %s", req, prev)
		}
		seen[q.Digest()] = req
	}
	// The order of the list does not matter.
	if q := keylessRequiring(t, "[timestamp, inclusionProof]"); seen[q.Digest()] != "[inclusionProof, timestamp]" {
		t.Fatalf("reordered require has the digest of %q", seen[q.Digest()])
	}
}

// keylessRequiring loads the keyless.yaml vector with require: list added
// to its trusted root.
func keylessRequiring(t *testing.T, list string) *verify.Policy {
	t.Helper()
	raw, err := os.ReadFile(vector("valid", "keyless.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	roots, err := filepath.Abs(vector("roots", ""))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(raw), "    digest: sha256:d8e1", "    require: "+list+"\n    digest: sha256:d8e1", 1)
	text = strings.Replace(text, "../roots/", roots+"/", 1)
	path := filepath.Join(t.TempDir(), "p.yaml")
	writeFile(t, path, []byte(text))
	q, err := verify.LoadPolicy(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("require %s: %v", list, err)
	}
	return q
}

// TestKeylessBundleVersions: bundles v0.1 (a certificate chain, the log
// entry proven by its SET alone) and v0.2 (a chain, SET and inclusion
// proof) verify as v0.3 do; require: inclusionProof refuses v0.1 only.
func TestKeylessBundleVersions(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	w := rootOf(t, ss, testsigstore.RootOptions{})
	strict, err := w.root.Require([]string{verify.RequireInclusionProof})
	if err != nil {
		t.Fatal(err)
	}
	proofID := w.workflowIdentity("release")
	proofID.Root = strict
	for _, c := range []struct{ version, mediaType string }{
		{"0.1", "application/vnd.dev.sigstore.bundle+json;version=0.1"},
		{"0.2", "application/vnd.dev.sigstore.bundle+json;version=0.2"},
		{"", testsigstore.BundleMediaType},
	} {
		t.Run("v"+cmp.Or(c.version, "0.3"), func(t *testing.T) {
			e := pushHello(t, testregistryHost(t), "addons/hello", "0.1.0", "")
			stmt, err := testsigstore.Statement(e.ref.Repo(), e.desc.Digest.String(), testsigstore.CosignSignPredicate, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ss.DSSEBundle(release.Identity(), stmt, testsigstore.SignOptions{BundleVersion: c.version})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"mediaType":"`+c.mediaType+`"`) || strings.Contains(string(b), "inclusionProof") != (c.version != "0.1") {
				t.Fatalf("bundle %s: %s", c.version, b)
			}
			if err := testsigstore.WriteBundle(context.Background(), e.ref.WithDigest(e.desc.Digest).String(), b, testsigstore.CosignSignPredicate); err != nil {
				t.Fatal(err)
			}
			res, err := verify.Verify(context.Background(), e.vt, e.desc, keylessPolicy(t, 1, w.workflowIdentity("release")))
			if err != nil || res.Signatures[0].Format != "bundle" || res.Signatures[0].Identity == nil {
				t.Fatalf("bundle v%s: %v %+v", c.version, err, res)
			}
			if c.version == "0.1" {
				refuse(t, e, keylessPolicy(t, 1, proofID), verify.ErrKeyless, "require: inclusionProof")
			} else if _, err := verify.Verify(context.Background(), e.vt, e.desc, keylessPolicy(t, 1, proofID)); err != nil {
				t.Fatalf("bundle v%s under require: inclusionProof: %v", c.version, err)
			}
		})
	}
}
