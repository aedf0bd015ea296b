package verify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestResultSigners: the signers of a Result are the distinct keys and
// certificate identities of its valid signatures — an identity that signed
// twice once — keys first by id, then identities, each with the policy's
// name; a cached Result has none.
func TestResultSigners(t *testing.T) {
	ctx := context.Background()
	w, e := keylessEnv(t)
	id := release.Identity()
	w.signBundle(t, e, id, e.desc.Digest.String(), testsigstore.SignOptions{})
	w.signClassic(t, e, id, testsigstore.SignOptions{})
	k1, k2 := newKey(t), newKey(t)
	if _, err := sign.Sign(ctx, e.target, e.desc, k1, sign.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sign.Sign(ctx, e.target, e.desc, k2, sign.Options{}); err != nil {
		t.Fatal(err)
	}
	kp := policyFor(t, k1, k2)
	p := &verify.Policy{Scopes: []verify.Scope{{Keys: kp.Scopes[0].Keys, Identities: []verify.Identity{w.workflowIdentity("release")}, Threshold: 3}}}
	res, err := verify.Verify(ctx, e.vt, e.desc, p)
	if err != nil {
		t.Fatalf("%v %+v", err, res)
	}
	got := res.Signers()
	ids := []string{k1.ID(), k2.ID()}
	slices.Sort(ids)
	if len(got) != 3 || got[0].KeyID != ids[0] || got[1].KeyID != ids[1] || got[0].Name == "" || got[1].Name == "" ||
		got[2] != (verify.Signer{Issuer: testsigstore.GitHubActionsIssuer, Subject: id.URI, Name: "release"}) {
		t.Fatalf("signers %+v, want keys %v then the release identity", got, ids)
	}
	if len(res.SignedBy) != len(got) {
		t.Errorf("SignedBy %v counts %d signers, Signers %d", res.SignedBy, len(res.SignedBy), len(got))
	}
	if s := verify.CachedResult(e.ref, e.desc.Digest, p).Signers(); s != nil {
		t.Errorf("a cached result names signers: %+v", s)
	}
}

// TestCompareSigners: keys before identities, each kind in byte order.
func TestCompareSigners(t *testing.T) {
	in := []verify.Signer{
		{Issuer: "https://b.example", Subject: "a"},
		{KeyID: "sha256:bb"},
		{Issuer: "https://a.example", Subject: "z"},
		{KeyID: "sha256:aa"},
		{Issuer: "https://a.example", Subject: "b"},
	}
	slices.SortFunc(in, verify.CompareSigners)
	var got []string
	for _, s := range in {
		got = append(got, s.KeyID+s.Issuer+" "+s.Subject)
	}
	want := "sha256:aa |sha256:bb |https://a.example b|https://a.example z|https://b.example a"
	if strings.Join(got, "|") != want {
		t.Errorf("order %q, want %q", strings.Join(got, "|"), want)
	}
	if !(verify.Signer{KeyID: "sha256:aa", Name: "x"}).Same(verify.Signer{KeyID: "sha256:aa", Name: "y"}) {
		t.Error("names make two signers differ")
	}
}
