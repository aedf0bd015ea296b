package commands

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/verify"
)

// verifyFlags are the trust flags of verify and of every consumer verb.
type verifyFlags struct {
	keyRefs    []string
	policyPath string
	rules      verify.ProvenanceRules
	limits     verify.Limits
	skip       bool // consumers only: --insecure-skip-verify
	name       string
	keyless    verify.IdentityOptions

	// the policy, built once per command by policy()
	built  bool
	pol    *verify.Policy
	polErr error
}

func (v *verifyFlags) add(cmd *cobra.Command, consumer bool) {
	fl := cmd.Flags()
	fl.StringArrayVar(&v.keyRefs, "key", nil, "trusted public key: a PEM file, env://VAR or a KMS URI (repeatable)")
	fl.StringVar(&v.policyPath, "policy", "", "verification policy file (YAML, specs/policy.md)")
	fl.BoolVar(&v.rules.Required, "require-provenance", false, "require a valid SLSA v1 provenance attestation")
	fl.StringArrayVar(&v.rules.BuilderIDs, "builder-id", nil, "accepted provenance builder id (repeatable; * matches within one /-separated segment, a final /** any deeper path: specs/policy.md); implies --require-provenance")
	fl.StringArrayVar(&v.rules.SourceRepositories, "source-repo", nil, "accepted source repository URL (repeatable; patterns as for --builder-id); implies --require-provenance")
	fl.StringArrayVar(&v.rules.PredicateTypes, "require-attestation", nil, "predicate type of a further attestation that must be present: a URI, or sbom, cyclonedx, spdxjson (repeatable)")
	fl.IntVar(&v.limits.MaxSignatures, "max-signatures", 0, fmt.Sprintf("most signatures plus attestations to examine; more fails (default %d)", verify.DefaultMaxSignatures))
	fl.Int64Var(&v.limits.MaxBlobSize, "max-blob-size", 0, fmt.Sprintf("largest signature/attestation blob to fetch, in bytes (default %d)", verify.DefaultMaxBlobSize))
	addKeylessFlags(cmd, &v.keyless)
	fl.StringVar(&v.name, "name", "", "the add-on (metadata.name) the reference must hold, for a repository named otherwise (a mirror that renames); default: the repository's last path element")
	if consumer {
		fl.BoolVar(&v.skip, "insecure-skip-verify", false, "do not verify signatures: integrity (digests) only, no authenticity")
	}
}

// trustGiven reports whether the command line names trust (keys, a
// policy, keyless identities or --insecure-skip-verify).
func (v *verifyFlags) trustGiven() bool {
	return len(v.keyRefs) > 0 || v.keyless.IsSet() || v.policyPath != "" || v.skip
}

// policy builds the policy the flags describe, once; nil with
// --insecure-skip-verify.
func (v *verifyFlags) policy(ctx context.Context, g *globals) (*verify.Policy, error) {
	if !v.built {
		v.pol, v.polErr = v.buildPolicy(ctx, g)
		v.built = true
	}
	return v.pol, v.polErr
}

func (v *verifyFlags) buildPolicy(ctx context.Context, g *globals) (*verify.Policy, error) {
	flagTrust := len(v.keyRefs) > 0 || v.keyless.IsSet()
	trusted := flagTrust || v.policyPath != ""
	switch {
	case v.skip && trusted:
		return nil, usageError{errors.New("--insecure-skip-verify cannot be combined with --key, --policy or keyless flags")}
	case v.skip:
		return nil, nil
	case flagTrust && v.policyPath != "":
		return nil, usageError{errors.New("give --key/--trusted-root… or --policy, not both (a policy file holds keys, roots and identities)")}
	case !trusted:
		return nil, usageError{errors.New("verification needs --key PUB, --trusted-root FILE with --certificate-identity… or --github-repository, or --policy FILE (or --insecure-skip-verify to skip it)")}
	}
	var (
		p   *verify.Policy
		err error
	)
	if v.policyPath != "" {
		p, err = verify.LoadPolicy(ctx, v.policyPath, g.getenv)
	} else {
		opts := verify.KeyOptions{Getenv: g.getenv}
		if v.keyless.IsSet() {
			id, err := v.keyless.Identity()
			if err != nil {
				return nil, err
			}
			opts.Identities = []verify.Identity{*id}
		}
		p, err = verify.PolicyFromKeys(ctx, v.keyRefs, opts)
	}
	if err != nil {
		return nil, err
	}
	return p.WithProvenance(v.rules).WithLimits(v.limits), nil
}

// defaultPolicy makes a policy file named by a stack file (relative to its
// directory dir) the trust of a command given neither --key, --policy nor
// --insecure-skip-verify.
func (v *verifyFlags) defaultPolicy(dir, policy string) {
	if policy != "" && len(v.keyRefs) == 0 && v.policyPath == "" && !v.skip {
		v.policyPath = filepath.Join(dir, policy)
	}
}
