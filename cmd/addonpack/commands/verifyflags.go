package commands

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/verify"
)

// verifiedTTL is how long a cached verification of a digest under a policy
// stands before signatures are checked again.
const verifiedTTL = time.Hour

// verifyFlags are the trust flags of verify and of every consumer verb.
type verifyFlags struct {
	keyRefs    []string
	policyPath string
	rules      verify.ProvenanceRules
	limits     verify.Limits
	skip       bool // consumers only: --insecure-skip-verify
	name       string

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
	fl.StringVar(&v.name, "name", "", "the add-on (metadata.name) the reference must hold, for a repository named otherwise (a mirror that renames); default: the repository's last path element")
	if consumer {
		fl.BoolVar(&v.skip, "insecure-skip-verify", false, "do not verify signatures: integrity (digests) only, no authenticity")
	}
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

// claim is what ref must hold: the add-on --name or the policy's names
// give, else the one its repository names, at the version a semver tag
// names (specs/artifact.md section 11.6).
func (v *verifyFlags) claim(ctx context.Context, g *globals, ref registry.Reference) (*spec.Claim, error) {
	p, err := v.policy(ctx, g)
	if err != nil {
		return nil, err
	}
	c := verify.Claim(ref, v.name, p)
	return &c, nil
}

func (v *verifyFlags) buildPolicy(ctx context.Context, g *globals) (*verify.Policy, error) {
	trusted := len(v.keyRefs) > 0 || v.policyPath != ""
	switch {
	case v.skip && trusted:
		return nil, usageError{errors.New("--insecure-skip-verify cannot be combined with --key or --policy")}
	case v.skip:
		return nil, nil
	case len(v.keyRefs) > 0 && v.policyPath != "":
		return nil, usageError{errors.New("give --key or --policy, not both")}
	case !trusted:
		return nil, usageError{errors.New("verification needs --key PUB or --policy FILE (or --insecure-skip-verify to skip it)")}
	}
	var (
		p   *verify.Policy
		err error
	)
	if v.policyPath != "" {
		p, err = verify.LoadPolicy(ctx, v.policyPath, g.getenv)
	} else {
		p, err = verify.PolicyFromKeys(ctx, v.keyRefs, verify.KeyOptions{Getenv: g.getenv})
	}
	if err != nil {
		return nil, err
	}
	return p.WithProvenance(v.rules).WithLimits(v.limits), nil
}

// hook returns the check pull runs on the resolved digest before it reads
// any content: signatures and provenance under the policy, answered from the
// verified-digest cache when this digest passed this policy within the last
// hour (and, offline, only from there). With --insecure-skip-verify it warns.
func (v *verifyFlags) hook(ctx context.Context, g *globals, c *registry.Client, ref registry.Reference) (func(context.Context, ocispec.Descriptor) error, error) {
	p, err := v.policy(ctx, g)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return func(_ context.Context, d ocispec.Descriptor) error {
			fmt.Fprintf(g.streams.Err, "Warning: --insecure-skip-verify: %s is not verified; its digest proves integrity, not who published it\n", ref.WithDigest(d.Digest))
			return nil
		}, nil
	}
	ch, err := g.cache()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, d ocispec.Descriptor) error {
		key := verify.MemoKey(p, ref)
		if age := p.CachedPassAge(ref, time.Now(), verifiedTTL); ch != nil && age > 0 && ch.Verified(d.Digest, key, age) {
			return nil
		}
		if g.offline {
			return fmt.Errorf("%s: no cached verification under this policy: %w", ref.WithDigest(d.Digest), cache.ErrOffline)
		}
		if _, err := verify.Verify(ctx, verify.Target{Client: c, Ref: ref}, d, p); err != nil {
			return err
		}
		if ch != nil {
			return ch.MarkVerified(d.Digest, key)
		}
		return nil
	}, nil
}

// defaultPolicy makes a policy file named by a stack file (relative to its
// directory dir) the trust of a command given neither --key, --policy nor
// --insecure-skip-verify.
func (v *verifyFlags) defaultPolicy(dir, policy string) {
	if policy != "" && len(v.keyRefs) == 0 && v.policyPath == "" && !v.skip {
		v.policyPath = filepath.Join(dir, policy)
	}
}
