package commands

import (
	"context"
	"encoding/json"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/pull"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// verifyMany verifies several references in one process: one line each on
// stdout (failures on stderr), or a JSON array; the first failure decides the
// exit code.
func (g *globals) verifyMany(ctx context.Context, args []string, p *verify.Policy, vf *verifyFlags, f format) error {
	refs := make([]registry.Reference, len(args))
	for i, a := range args {
		ref, err := g.reference(a)
		if err != nil {
			return err
		}
		refs[i] = ref
	}
	c, err := g.client()
	if err != nil {
		return err
	}
	opts := verify.BatchOptions{MaxAge: verifiedTTL, Then: func(ctx context.Context, ref registry.Reference, desc ocispec.Descriptor) error {
		return g.checkClaim(ctx, c, ref, desc, vf)
	}}
	if ch, err := g.cache(); err != nil {
		return err
	} else if ch != nil {
		opts.Memo = ch
	}
	one := g.progress.counter(fmt.Sprintf("Verifying %d references", len(refs)), len(refs))
	opts.Progress = func(verify.Outcome) { one() }
	outcomes := verify.All(ctx, c, refs, p, opts)
	var first error
	for _, o := range outcomes {
		if o.Err != nil && first == nil {
			first = o.Err
		}
	}
	if f == formatJSON {
		enc := json.NewEncoder(g.streams.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(outcomes); err != nil {
			return err
		}
		return first
	}
	failed := 0
	for _, o := range outcomes {
		switch {
		case o.Err != nil:
			failed++
			fmt.Fprintf(g.streams.Err, "FAILED   %s: %v\n", o.Reference, o.Err)
		case o.Cached:
			fmt.Fprintf(g.streams.Out, "verified %s@%s (cached)\n", o.Reference, o.Digest)
		default:
			fmt.Fprintf(g.streams.Out, "verified %s@%s\n", o.Reference, o.Digest)
		}
	}
	if first != nil {
		return fmt.Errorf("%d of %d references failed; the first: %w", failed, len(outcomes), first)
	}
	return nil
}

// checkClaim loads the config blob of desc, which verified, and checks that
// it is the add-on ref names (specs/artifact.md section 11.6).
func (g *globals) checkClaim(ctx context.Context, c *registry.Client, ref registry.Reference, desc ocispec.Descriptor, vf *verifyFlags) error {
	claim, err := vf.claim(ctx, g, ref)
	if err != nil {
		return err
	}
	src, err := g.cached(artifact.Remote{Client: c, Ref: ref})
	if err != nil {
		return err
	}
	_, err = pull.LoadDigest(ctx, src, desc, pull.Options{Claim: claim})
	return err
}
