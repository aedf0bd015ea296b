package verify_test

import (
	"context"
	"slices"
	"testing"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// TestSufficient checks a verification for the decision alone
// (MemoOptions.Sufficient) against the full one on the same artifacts: the
// same verdict and, when it fails, the same reasons; the classic tags
// looked up only when the bundle referrers do not pass, or always when the
// scope has attestation rules.
func TestSufficient(t *testing.T) {
	prov := verify.ProvenanceRules{Required: true}
	type signed struct {
		key    int // 0 or 1
		format sign.Format
		attest bool // a SLSA provenance instead of a signature
	}
	tests := []struct {
		name      string
		signed    []signed
		policy    func(t *testing.T, k []*keys.Signer) *verify.Policy
		pass      bool
		tagLookup bool // the .sig and .att tags were asked for
	}{
		{"bundles pass", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatBundle, true}},
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.Policy(t, verify.KeyOptions{Provenance: prov}, k[0])
			}, true, false},
		{"classic only", []signed{{0, sign.FormatClassic, false}, {0, sign.FormatClassic, true}},
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.Policy(t, verify.KeyOptions{Provenance: prov}, k[0])
			}, true, true},
		{"provenance only in classic storage", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatClassic, true}},
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.Policy(t, verify.KeyOptions{Provenance: prov}, k[0])
			}, true, true},
		{"threshold met across the two storages", []signed{{0, sign.FormatBundle, false}, {1, sign.FormatClassic, false}},
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.Policy(t, verify.KeyOptions{Threshold: 2}, k[0], k[1])
			}, true, true},
		{"threshold not met", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatClassic, false}},
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.Policy(t, verify.KeyOptions{Threshold: 2}, k[0], k[1])
			}, false, true},
		{"signed by another key", []signed{{1, sign.FormatBundle, false}, {1, sign.FormatBundle, true}},
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.Policy(t, verify.KeyOptions{Provenance: prov}, k[0])
			}, false, true},
		{"attestation rules look everywhere", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatBundle, true}},
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return rulesPolicy(t, k[0], sourceRule)
			}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			reg := testregistry.New(t)
			k := []*keys.Signer{newKey(t), newKey(t)}
			e := pushHello(t, reg.Host(), "addons/hello", "0.1.0", "")
			for _, s := range tt.signed {
				var err error
				if s.attest {
					_, err = sign.Attest(ctx, e.target, e.desc, k[s.key], slsaFor(t, e, "https://ci.example/b"), sign.Options{Format: s.format})
				} else {
					_, err = sign.Sign(ctx, e.target, e.desc, k[s.key], sign.Options{Format: s.format})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			p := tt.policy(t, k)
			full, _, fullErr := verify.Remembered(ctx, e.vt, e.desc, p, verify.MemoOptions{})
			reg.ResetLog()
			got, _, gotErr := verify.Remembered(ctx, e.vt, e.desc, p, verify.MemoOptions{Sufficient: true})
			if (gotErr == nil) != tt.pass || (fullErr == nil) != tt.pass {
				t.Fatalf("sufficient: %v; full: %v; want pass %v", gotErr, fullErr, tt.pass)
			}
			if !tt.pass && (gotErr.Error() != fullErr.Error() || !slices.Equal(got.Reasons, full.Reasons)) {
				t.Errorf("a failure differs:\nsufficient: %v\nfull:       %v", gotErr, fullErr)
			}
			if tt.pass && !slices.Equal(got.SignedBy, full.SignedBy) {
				t.Errorf("signed by %q, the full verification %q", got.SignedBy, full.SignedBy)
			}
			lookedUp := false
			for _, r := range reg.Log() {
				if k := requestKind(r); k == "GET .sig" || k == "GET .att" {
					lookedUp = true
				}
			}
			if lookedUp != tt.tagLookup {
				t.Errorf("classic tags looked up: %v, want %v", lookedUp, tt.tagLookup)
			}
		})
	}
}
