package vet_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/pkg/vet"
)

// TestVetThenCopy: what vet adds travels with the add-on. After vet, copy
// (registry to registry) and copy --to-tarball then --from-tarball (the air
// gap) keep the publisher's signatures and provenance and the
// organisation's signature and summary, in both signature formats: at the
// destination the add-on verifies under the downstream policy (the
// organisation's key and requireVerificationSummary pinned to the upstream
// policy) and still under the publisher's.
func TestVetThenCopy(t *testing.T) {
	for _, reg := range realregistry.Both() {
		for _, f := range []sign.Format{sign.FormatClassic, sign.FormatBundle} {
			for _, via := range []string{"registry", "tarball"} {
				t.Run(reg.Name+"/"+string(f)+"/"+via, func(t *testing.T) {
					vetThenCopy(t, reg, f, via)
				})
			}
		}
	}
}

// vetThenCopy vets an add-on published on reg in format f, copies it via
// a registry or a tarball to another registry of the same kind, and checks
// what arrived.
func vetThenCopy(t *testing.T, reg realregistry.Registry, f sign.Format, via string) {
	ctx := context.Background()
	u := publishOn(t, reg.Start(t), f)
	org := newKey(t)
	if _, err := vet.Vet(ctx, u.published.Ref, u.options(org, f)); err != nil {
		t.Fatal(err)
	}
	down := testartifact.SummaryPolicy(t, org, summaryRule(u.policy.Digest()))
	src := u.published.Ref
	dst := registry.Reference{Registry: reg.Start(t), Repository: "vetted/hello", Tag: "0.1.0"}
	opts := relocate.Options{Policy: down}
	var (
		res *relocate.Result
		err error
	)
	if via == "registry" {
		res, err = relocate.Copy(ctx, u.client, src, dst, opts)
	} else {
		tarball := filepath.Join(t.TempDir(), "hello.tar")
		if _, err = relocate.ToTarball(ctx, u.client, src, tarball, opts); err != nil {
			t.Fatal(err)
		}
		dst.Tag = ""
		res, err = relocate.FromTarball(ctx, u.client, tarball, dst, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verification.Verified || !res.Verification.Summary.Holds {
		t.Fatalf("copy: %+v", res.Verification)
	}
	dst.Tag = "0.1.0"
	got, err := consume.Verify(ctx, dst, consume.Options{Client: u.client, Policy: down})
	if err != nil {
		t.Fatalf("downstream at the destination: %v", err)
	}
	if got.Digest != u.published.Desc.Digest || !got.Summary.Holds {
		t.Fatalf("downstream: %+v", got)
	}
	if _, err := consume.Verify(ctx, dst, consume.Options{Client: u.client, Policy: u.policy}); err != nil {
		t.Errorf("the publisher's policy at the destination: %v", err)
	}
	// Every signature and attestation made it: the publisher's two and the organisation's two.
	srcAll, dstAll := attached(t, u.client, src, u.published), attached(t, u.client, dst, u.published)
	if len(dstAll) != len(srcAll) || len(srcAll) != 4 {
		t.Errorf("%d candidates at the destination, %d at the source (want 4)", len(dstAll), len(srcAll))
	}
	valid := map[string]int{}
	res2, _ := verify.Verify(ctx, verify.Target{Client: u.client, Ref: dst}, u.published.Desc,
		testPolicyBoth(t, u, org))
	for _, c := range append(res2.Signatures, res2.Attestations...) {
		if c.Verdict == verify.Valid {
			valid[c.KeyID+" "+c.Kind+" "+c.PredicateType]++
		}
	}
	for _, want := range []string{
		u.publisher.ID() + " signature ", u.publisher.ID() + " attestation " + verify.ProvenancePredicateType,
		org.ID() + " signature ", org.ID() + " attestation " + verify.VerificationSummaryPredicateType,
	} {
		if valid[want] != 1 {
			t.Errorf("at the destination, %d valid %q (all: %v)", valid[want], want, valid)
		}
	}
}
