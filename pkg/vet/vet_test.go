package vet_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/pkg/vet"
)

// TestVet: vet verifies under the upstream policy, then adds the
// organisation's signature and VSA beside the publisher's (nothing of the
// publisher's is lost); a downstream policy trusting only the organisation's
// key and requiring the summary verifies; the predicate says what verified.
func TestVet(t *testing.T) {
	for _, f := range []sign.Format{sign.FormatBundle, sign.FormatClassic, sign.FormatBoth} {
		t.Run(string(f), func(t *testing.T) {
			ctx := context.Background()
			u := publish(t, f)
			org := newKey(t)
			before := attached(t, u.client, u.published.Ref, u.published)
			when := time.Date(2026, 12, 2, 21, 0, 0, 0, time.UTC)
			o := u.options(org, f)
			o.Now = func() time.Time { return when }
			res, err := vet.Vet(ctx, u.published.Ref, o)
			if err != nil {
				t.Fatal(err)
			}
			d := u.published.Desc.Digest
			p := res.Predicate
			switch {
			case res.Digest != d || !res.Verification.Verified:
				t.Fatalf("result: %+v", res)
			case p.Verifier.ID != vet.DefaultVerifierID || p.Verifier.Version["addonpack"] != "test":
				t.Errorf("verifier %+v", p.Verifier)
			case !p.TimeVerified.Equal(when) || p.VerificationResult != "PASSED" || p.SLSAVersion != "1.0":
				t.Errorf("predicate %+v", p)
			case p.ResourceURI != u.published.Ref.Repo()+"@"+d.String():
				t.Errorf("resourceUri %s", p.ResourceURI)
			case p.Policy.URI != "upstream.yaml" || "sha256:"+p.Policy.Digest["sha256"] != u.policy.Digest():
				t.Errorf("policy %+v, want digest %s", p.Policy, u.policy.Digest())
			case !slices.Equal(p.VerifiedLevels, []string{"SLSA_BUILD_LEVEL_1"}):
				t.Errorf("verifiedLevels %v (a provenance verified)", p.VerifiedLevels)
			case res.Signature.KeyID != org.ID() || res.Summary.PredicateType != verify.VerificationSummaryPredicateType:
				t.Errorf("stored %+v %+v", res.Signature, res.Summary)
			}
			// every input is a candidate that verified upstream, by digest
			valid := 0
			for _, c := range append(res.Verification.Signatures, res.Verification.Attestations...) {
				if c.Verdict == verify.Valid {
					valid++
				}
			}
			if len(p.InputAttestations) != valid || valid < 2 {
				t.Errorf("%d input attestations, %d valid candidates", len(p.InputAttestations), valid)
			}
			for _, in := range p.InputAttestations {
				if len(in.Digest["sha256"]) != 64 || in.Name == "" {
					t.Errorf("input %+v", in)
				}
			}

			// The publisher's signatures are all still there, and still verify.
			after := attached(t, u.client, u.published.Ref, u.published)
			if len(after) != len(before)+2*formats(f) {
				t.Errorf("%d candidates after vet, %d before: want 2 more per format", len(after), len(before))
			}
			if _, err := verify.Verify(ctx, verify.Target{Client: u.client, Ref: u.published.Ref}, u.published.Desc, u.policy); err != nil {
				t.Errorf("the publisher's policy no longer verifies: %v", err)
			}
			// Downstream: only the organisation's key, and its summary.
			down := testartifact.SummaryPolicy(t, org, summaryRule(u.policy.Digest()))
			vres, err := consume.Verify(ctx, u.published.Ref, consume.Options{Client: u.client, Policy: down})
			if err != nil {
				t.Fatal(err)
			}
			if s := vres.Summary; s == nil || !s.Holds || s.Location == "" || !slices.Equal(vres.SignedBy, []string{org.ID()}) {
				t.Fatalf("downstream: %+v %+v", vres, vres.Summary)
			}
		})
	}
}

func formats(f sign.Format) int {
	if f == sign.FormatBoth {
		return 2
	}
	return 1
}

// TestVetRefusesWritesNothing: an add-on that fails the upstream policy is
// neither signed nor attested (exit 9's class); options that cannot work
// are refused before anything is requested.
func TestVetRefusesWritesNothing(t *testing.T) {
	ctx := context.Background()
	u := publish(t, sign.FormatBundle)
	org := newKey(t)
	before := attached(t, u.client, u.published.Ref, u.published)
	for name, tc := range map[string]struct {
		o    func(vet.Options) vet.Options
		want error
	}{
		"untrusted publisher": {func(o vet.Options) vet.Options {
			o.Upstream.Policy = testartifact.SummaryPolicy(t, newKey(t), summaryRule("")) // another key entirely
			return o
		}, verify.ErrVerification},
		"no provenance where required": {func(o vet.Options) vet.Options {
			o.Upstream.Policy = o.Upstream.Policy.WithProvenance(verify.ProvenanceRules{BuilderIDs: []string{"https://other.example/builder"}})
			return o
		}, verify.ErrProvenance},
		"no policy":          {func(o vet.Options) vet.Options { o.Upstream.Policy = nil; return o }, vet.ErrOptions},
		"skip verification":  {func(o vet.Options) vet.Options { o.Upstream.InsecureSkipVerify = true; return o }, vet.ErrOptions},
		"no policy uri":      {func(o vet.Options) vet.Options { o.PolicyURI = ""; return o }, vet.ErrOptions},
		"no key":             {func(o vet.Options) vet.Options { o.Signer = nil; return o }, vet.ErrOptions},
		"level 4":            {func(o vet.Options) vet.Options { o.BuildLevel = 4; return o }, vet.ErrOptions},
		"level 1 stated":     {func(o vet.Options) vet.Options { o.BuildLevel = 1; return o }, vet.ErrOptions},
		"level 3 no builder": {func(o vet.Options) vet.Options { o.BuildLevel = 3; return o }, vet.ErrOptions},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := vet.Vet(ctx, u.published.Ref, tc.o(u.options(org, sign.FormatBundle)))
			if !errors.Is(err, tc.want) {
				t.Fatalf("want %v, got %v", tc.want, err)
			}
			if res != nil && (res.Signature != nil || res.Summary != nil) {
				t.Errorf("wrote %+v", res)
			}
			if after := attached(t, u.client, u.published.Ref, u.published); len(after) != len(before) {
				t.Errorf("%d candidates after a refused vet, %d before", len(after), len(before))
			}
		})
	}
}

// TestVetBuildLevel: a level above 1 is the organisation's word for the
// builders its upstream policy pins, written only when it pins them.
func TestVetBuildLevel(t *testing.T) {
	u := publish(t, sign.FormatBundle)
	o := u.options(newKey(t), sign.FormatBundle)
	o.Upstream.Policy = o.Upstream.Policy.WithProvenance(verify.ProvenanceRules{BuilderIDs: []string{"https://ci.example/builder"}})
	o.BuildLevel = 3
	res, err := vet.Vet(context.Background(), u.published.Ref, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Predicate.VerifiedLevels, ","); got != "SLSA_BUILD_LEVEL_3" {
		t.Errorf("verifiedLevels %s", got)
	}
}

// TestVetAgain: vetting again (a new upstream policy, a later day) passes
// beside the organisation's earlier signature and summary, which the
// upstream policy does not trust and which are not its inputs; the
// downstream policy still verifies.
func TestVetAgain(t *testing.T) {
	for _, f := range []sign.Format{sign.FormatBundle, sign.FormatClassic} {
		t.Run(string(f), func(t *testing.T) {
			ctx := context.Background()
			u := publish(t, f)
			org := newKey(t)
			first, err := vet.Vet(ctx, u.published.Ref, u.options(org, f))
			if err != nil {
				t.Fatal(err)
			}
			again, err := vet.Vet(ctx, u.published.Ref, u.options(org, f))
			if err != nil {
				t.Fatalf("vet again: %v", err)
			}
			if len(again.Predicate.InputAttestations) != len(first.Predicate.InputAttestations) {
				t.Errorf("inputs %d, then %d: the organisation's own summary is not an input", len(first.Predicate.InputAttestations), len(again.Predicate.InputAttestations))
			}
			down := testartifact.SummaryPolicy(t, org, summaryRule(u.policy.Digest()))
			if _, err := consume.Verify(ctx, u.published.Ref, consume.Options{Client: u.client, Policy: down}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
