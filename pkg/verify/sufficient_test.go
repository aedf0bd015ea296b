package verify_test

import (
	"context"
	"net/http"
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
// same verdict and, when it fails, the same reasons; signers found a subset
// of the full verification's; the classic tags looked up only when the
// bundle referrers do not pass, or always when the scope has attestation
// rules. Two rows pin where the two part, on purpose (specs/policy.md,
// "Where candidates are looked for"): what is not looked up cannot fail
// the decision — more candidates than maxSignatures counting the classic
// tags, a registry error on them.
func TestSufficient(t *testing.T) {
	prov := verify.ProvenanceRules{Required: true}
	vsaRule := "      verifier: " + vetID + "\n"
	type signed struct {
		key    int // 0 or 1
		format sign.Format
		attest bool // a SLSA provenance instead of a signature
	}
	summary := func(e env) []byte {
		return statementWith(e, verify.VerificationSummaryPredicateType, vsa(vetID, e.ref.Repo()+"@"+e.desc.Digest.String(), "PASSED", "00"))
	}
	keyPolicy := func(o verify.KeyOptions, signers ...int) func(*testing.T, []*keys.Signer) *verify.Policy {
		return func(t *testing.T, k []*keys.Signer) *verify.Policy {
			var s []*keys.Signer
			for _, i := range signers {
				s = append(s, k[i])
			}
			return testartifact.Policy(t, o, s...)
		}
	}
	sigOnly := []signed{{0, sign.FormatBundle, false}}
	tests := []struct {
		name      string
		signed    []signed
		summary   sign.Format // a verification summary by key 0, in this storage ("": none)
		policy    func(*testing.T, []*keys.Signer) *verify.Policy
		faults    []testregistry.FaultRule
		pass      bool
		fullFails bool // the full verification fails where this one passes
		tagLookup bool // the .sig and .att tags were asked for
	}{
		{"bundles pass", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatBundle, true}},
			"", keyPolicy(verify.KeyOptions{Provenance: prov}, 0), nil, true, false, false},
		{"classic only", []signed{{0, sign.FormatClassic, false}, {0, sign.FormatClassic, true}},
			"", keyPolicy(verify.KeyOptions{Provenance: prov}, 0), nil, true, false, true},
		{"provenance only in classic storage", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatClassic, true}},
			"", keyPolicy(verify.KeyOptions{Provenance: prov}, 0), nil, true, false, true},
		{"predicate type only in classic storage", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatClassic, true}},
			"", keyPolicy(verify.KeyOptions{Provenance: verify.ProvenanceRules{PredicateTypes: []string{"slsaprovenance1"}}}, 0), nil, true, false, true},
		{"threshold met across the two storages", []signed{{0, sign.FormatBundle, false}, {1, sign.FormatClassic, false}},
			"", keyPolicy(verify.KeyOptions{Threshold: 2}, 0, 1), nil, true, false, true},
		{"threshold not met", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatClassic, false}},
			"", keyPolicy(verify.KeyOptions{Threshold: 2}, 0, 1), nil, false, false, true},
		{"signed by another key", []signed{{1, sign.FormatBundle, false}, {1, sign.FormatBundle, true}},
			"", keyPolicy(verify.KeyOptions{Provenance: prov}, 0), nil, false, false, true},
		{"a second trusted signer in classic storage, not needed", []signed{{0, sign.FormatBundle, false}, {1, sign.FormatClassic, false}},
			"", keyPolicy(verify.KeyOptions{}, 0, 1), nil, true, false, false},
		{"summary in bundles", sigOnly, sign.FormatBundle,
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.SummaryPolicy(t, k[0], vsaRule)
			}, nil, true, false, false},
		{"summary only in classic storage", sigOnly, sign.FormatClassic,
			func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.SummaryPolicy(t, k[0], vsaRule)
			}, nil, true, false, true},
		{"attestation rules look everywhere", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatBundle, true}},
			"", func(t *testing.T, k []*keys.Signer) *verify.Policy { return rulesPolicy(t, k[0], sourceRule) }, nil, true, false, true},
		{"more candidates than maxSignatures counting the classic tags", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatBundle, true}, {1, sign.FormatClassic, false}},
			"", func(t *testing.T, k []*keys.Signer) *verify.Policy {
				return testartifact.Policy(t, verify.KeyOptions{Provenance: prov}, k[0]).WithLimits(verify.Limits{MaxSignatures: 2})
			}, nil, true, true, false},
		{"a registry error on the classic tags", []signed{{0, sign.FormatBundle, false}, {0, sign.FormatBundle, true}},
			"", keyPolicy(verify.KeyOptions{Provenance: prov}, 0),
			[]testregistry.FaultRule{{Match: testregistry.MatchPath(".sig"), Kind: testregistry.Status5xx, Status: http.StatusForbidden}},
			true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			reg := testregistry.New(t, testregistry.WithFaults(testregistry.Faults{Rules: tt.faults}))
			k := []*keys.Signer{newKey(t), newKey(t)}
			e := pushHello(t, reg.Host(), "addons/hello", "0.1.0", "")
			for _, s := range tt.signed {
				var err error
				switch {
				case s.attest:
					_, err = sign.Attest(ctx, e.target, e.desc, k[s.key], slsaFor(t, e, "https://ci.example/b"), sign.Options{Format: s.format})
				default:
					_, err = sign.Sign(ctx, e.target, e.desc, k[s.key], sign.Options{Format: s.format})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if tt.summary != "" {
				if _, err := sign.Attest(ctx, e.target, e.desc, k[0], summary(e), sign.Options{Format: tt.summary}); err != nil {
					t.Fatal(err)
				}
			}
			p := tt.policy(t, k)
			full, _, fullErr := verify.Remembered(ctx, e.vt, e.desc, p, verify.MemoOptions{})
			reg.ResetLog()
			got, _, gotErr := verify.Remembered(ctx, e.vt, e.desc, p, verify.MemoOptions{Sufficient: true})
			if (gotErr == nil) != tt.pass || (fullErr == nil) != (tt.pass && !tt.fullFails) {
				t.Fatalf("sufficient: %v; full: %v; want pass %v, the full verification failing %v", gotErr, fullErr, tt.pass, tt.fullFails)
			}
			if !tt.pass && (gotErr.Error() != fullErr.Error() || !slices.Equal(got.Reasons, full.Reasons)) {
				t.Errorf("a failure differs:\nsufficient: %v\nfull:       %v", gotErr, fullErr)
			}
			if tt.pass && !tt.fullFails {
				for _, s := range got.SignedBy {
					if !slices.Contains(full.SignedBy, s) {
						t.Errorf("signed by %q, the full verification by %q", got.SignedBy, full.SignedBy)
					}
				}
			}
			if lookedUp := requestsOf(reg, "GET .sig", "GET .att") > 0; lookedUp != tt.tagLookup {
				t.Errorf("classic tags looked up: %v, want %v", lookedUp, tt.tagLookup)
			}
		})
	}
}
