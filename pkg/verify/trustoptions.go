package verify

import (
	"context"
	"path/filepath"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// TrustOptions are the command line's trust: keys, a policy file or keyless
// identities — exactly one of them — or SkipVerify, with provenance rules
// and limits laid over what they give.
type TrustOptions struct {
	KeyRefs    []string // --key: PEM files, env://VAR or KMS URIs
	PolicyPath string   // --policy
	Keyless    IdentityOptions
	SkipVerify bool // --insecure-skip-verify
	Rules      ProvenanceRules
	Limits     Limits
}

// Given reports whether trust is named at all (keys, a policy, keyless
// identities or SkipVerify).
func (o TrustOptions) Given() bool {
	return len(o.KeyRefs) > 0 || o.Keyless.IsSet() || o.PolicyPath != "" || o.SkipVerify
}

// Check refuses combinations that do not go together, and no trust at all
// (errdef.ErrUsage).
func (o TrustOptions) Check() error {
	flagTrust := len(o.KeyRefs) > 0 || o.Keyless.IsSet()
	trusted := flagTrust || o.PolicyPath != ""
	switch {
	case o.SkipVerify && trusted:
		return errdef.Usagef("--insecure-skip-verify cannot be combined with --key, --policy or keyless flags")
	case flagTrust && o.PolicyPath != "":
		return errdef.Usagef("give --key/--trusted-root… or --policy, not both (a policy file holds keys, roots and identities)")
	case !trusted && !o.SkipVerify:
		return errdef.Usagef("verification needs --key PUB, --trusted-root FILE with --certificate-identity… or --github-repository, or --policy FILE (or --insecure-skip-verify to skip it)")
	}
	return nil
}

// Policy builds the policy the options describe, after Check (whose errors
// it returns first); nil with SkipVerify.
func (o TrustOptions) Policy(ctx context.Context, getenv func(string) string) (*Policy, error) {
	if err := o.Check(); err != nil || o.SkipVerify {
		return nil, err
	}
	var (
		p   *Policy
		err error
	)
	if o.PolicyPath != "" {
		p, err = LoadPolicy(ctx, o.PolicyPath, getenv)
	} else {
		opts := KeyOptions{Getenv: getenv}
		if o.Keyless.IsSet() {
			id, err := o.Keyless.Identity()
			if err != nil {
				return nil, err
			}
			opts.Identities = []Identity{*id}
		}
		p, err = PolicyFromKeys(ctx, o.KeyRefs, opts)
	}
	if err != nil {
		return nil, err
	}
	return p.WithProvenance(o.Rules).WithLimits(o.Limits), nil
}

// DefaultPolicy makes a policy file named by a stack file (relative to its
// directory dir) the trust of options that name none.
func (o *TrustOptions) DefaultPolicy(dir, policy string) {
	if policy != "" && len(o.KeyRefs) == 0 && o.PolicyPath == "" && !o.SkipVerify {
		o.PolicyPath = filepath.Join(dir, policy)
	}
}
