package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/verify"
)

// verifyFlags are the trust flags of verify and of every consumer verb.
type verifyFlags struct {
	verify.TrustOptions
	name string

	// the policy, built once per command by policy()
	built  bool
	pol    *verify.Policy
	polErr error
}

func (v *verifyFlags) add(cmd *cobra.Command, consumer bool) {
	fl := cmd.Flags()
	fl.StringArrayVar(&v.KeyRefs, "key", nil, "trusted public key: a PEM file, env://VAR or a KMS URI (repeatable)")
	fl.StringVar(&v.PolicyPath, "policy", "", "verification policy file (YAML, specs/policy.md)")
	fl.BoolVar(&v.Rules.Required, "require-provenance", false, "require a valid SLSA v1 provenance attestation")
	fl.StringArrayVar(&v.Rules.BuilderIDs, "builder-id", nil, "accepted provenance builder id (repeatable; * matches within one /-separated segment, a final /** any deeper path: specs/policy.md); implies --require-provenance")
	fl.StringArrayVar(&v.Rules.SourceRepositories, "source-repo", nil, "accepted source repository URL (repeatable; patterns as for --builder-id); implies --require-provenance")
	fl.StringArrayVar(&v.Rules.PredicateTypes, "require-attestation", nil, "predicate type of a further attestation that must be present: a URI, or sbom, cyclonedx, spdxjson (repeatable)")
	fl.IntVar(&v.Limits.MaxSignatures, "max-signatures", 0, fmt.Sprintf("most signatures plus attestations to examine; more fails (default %d)", verify.DefaultMaxSignatures))
	fl.Int64Var(&v.Limits.MaxBlobSize, "max-blob-size", 0, fmt.Sprintf("largest signature/attestation blob to fetch, in bytes (default %d)", verify.DefaultMaxBlobSize))
	addKeylessFlags(cmd, &v.Keyless)
	fl.StringVar(&v.name, "name", "", "the add-on (metadata.name) the reference must hold, for a repository named otherwise (a mirror that renames); default: the repository's last path element")
	if consumer {
		fl.BoolVar(&v.SkipVerify, "insecure-skip-verify", false, "do not verify signatures: integrity (digests) only, no authenticity")
	}
}

// policy builds the policy the flags describe, once (verify.TrustOptions);
// nil with --insecure-skip-verify.
func (v *verifyFlags) policy(ctx context.Context, g *globals) (*verify.Policy, error) {
	if !v.built {
		if v.polErr = v.Check(); v.polErr != nil {
			v.polErr = usageError{v.polErr}
		} else {
			v.pol, v.polErr = v.Policy(ctx, g.getenv)
		}
		v.built = true
	}
	return v.pol, v.polErr
}
