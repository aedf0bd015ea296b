package verify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestBothFormats: sign.FormatBoth stores the classic tag and the bundle
// referrer of the signature and of the attestation; verify finds the four,
// all valid, and counts one signer.
func TestBothFormats(t *testing.T) {
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			ctx := context.Background()
			e := pushHello(t, reg.Start(t), "addons/hello", "0.1.0", "")
			k := newKey(t)
			opts := sign.Options{Format: sign.FormatBoth}
			s, err := sign.Sign(ctx, e.target, e.desc, k, opts)
			if err != nil {
				t.Fatal(err)
			}
			a, err := sign.Attest(ctx, e.target, e.desc, k, slsaFor(t, e, "https://ci.example/builder"), opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []*sign.Result{s, a} {
				if r.Format != sign.FormatBoth || !strings.Contains(r.Location, "@sha256:") ||
					!strings.HasSuffix(r.ClassicLocation, e.desc.Digest.Encoded()+map[string]string{"signature": ".sig", "attestation": ".att"}[r.Kind]) {
					t.Fatalf("%s result: %+v", r.Kind, r)
				}
			}
			res, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k).WithProvenance(verify.ProvenanceRules{Required: true}))
			if err != nil {
				t.Fatal(err)
			}
			formats := map[string]int{}
			for _, c := range append(res.Signatures, res.Attestations...) {
				if c.Verdict != verify.Valid {
					t.Errorf("invalid: %+v", c)
				}
				formats[c.Kind+"/"+c.Format]++
			}
			want := map[string]int{"signature/classic": 1, "signature/bundle": 1, "attestation/classic": 1, "attestation/bundle": 1}
			if len(formats) != len(want) || len(res.SignedBy) != 1 {
				t.Fatalf("found %v, signed by %v; want %v and one signer", formats, res.SignedBy, want)
			}
			for k, n := range want {
				if formats[k] != n {
					t.Fatalf("found %v, want %v", formats, want)
				}
			}
		})
	}
}
