package verify_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

func TestTrustOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    verify.TrustOptions
		want string // "" for no error
	}{
		{"key", verify.TrustOptions{KeyRefs: []string{"k.pub"}}, ""},
		{"policy", verify.TrustOptions{PolicyPath: "p.yaml"}, ""},
		{"keyless", verify.TrustOptions{Keyless: verify.IdentityOptions{TrustedRoot: "r.json"}}, ""},
		{"skip", verify.TrustOptions{SkipVerify: true}, ""},
		{"skip and key", verify.TrustOptions{SkipVerify: true, KeyRefs: []string{"k.pub"}}, "--insecure-skip-verify cannot be combined with --key, --policy or keyless flags"},
		{"skip and policy", verify.TrustOptions{SkipVerify: true, PolicyPath: "p.yaml"}, "--insecure-skip-verify cannot be combined with --key, --policy or keyless flags"},
		{"key and policy", verify.TrustOptions{KeyRefs: []string{"k.pub"}, PolicyPath: "p.yaml"}, "give --key/--trusted-root… or --policy, not both (a policy file holds keys, roots and identities)"},
		{"none", verify.TrustOptions{}, "verification needs --key PUB, --trusted-root FILE with --certificate-identity… or --github-repository, or --policy FILE (or --insecure-skip-verify to skip it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Check()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				if !tc.o.Given() {
					t.Fatal("Given: false for trust that checks")
				}
				return
			}
			if err == nil || err.Error() != tc.want || !errors.Is(err, errdef.ErrUsage) {
				t.Fatalf("Check: %v, want %q in errdef.ErrUsage", err, tc.want)
			}
			if _, perr := tc.o.Policy(context.Background(), nil); perr == nil || perr.Error() != tc.want {
				t.Fatalf("Policy: %v, want Check's error", perr)
			}
		})
	}
}

func TestTrustOptionsPolicy(t *testing.T) {
	ctx := context.Background()
	if p, err := (verify.TrustOptions{SkipVerify: true}).Policy(ctx, nil); p != nil || err != nil {
		t.Fatalf("SkipVerify: %v, %v; want no policy", p, err)
	}
	_, _, pub := testkey.New(t)
	o := verify.TrustOptions{KeyRefs: []string{pub}, Rules: verify.ProvenanceRules{Required: true}, Limits: verify.Limits{MaxSignatures: 3}}
	p, err := o.Policy(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Scopes) == 0 || !p.Scopes[0].Provenance.Required || p.Limits.MaxSignatures != 3 {
		t.Fatalf("policy from a key: %+v, want provenance required and 3 signatures at most", p)
	}
}

func TestTrustOptionsDefaultPolicy(t *testing.T) {
	var o verify.TrustOptions
	o.DefaultPolicy("stack", "policy.yaml")
	if want := filepath.Join("stack", "policy.yaml"); o.PolicyPath != want {
		t.Fatalf("no trust: PolicyPath %q, want %q", o.PolicyPath, want)
	}
	o = verify.TrustOptions{KeyRefs: []string{"k.pub"}}
	if o.DefaultPolicy("stack", "policy.yaml"); o.PolicyPath != "" {
		t.Fatalf("with --key: PolicyPath %q, want none", o.PolicyPath)
	}
}
