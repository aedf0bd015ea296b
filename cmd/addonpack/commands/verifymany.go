package commands

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// verifyMany verifies several references in one process (consume.VerifyAll):
// one line each on stdout (failures on stderr), or a JSON array; the first
// failure decides the exit code.
func (g *globals) verifyMany(ctx context.Context, args []string, o consume.Options, f format) error {
	refs := make([]registry.Reference, len(args))
	for i, a := range args {
		ref, err := g.reference(a)
		if err != nil {
			return err
		}
		refs[i] = ref
	}
	one := g.progress.Counter(fmt.Sprintf("Verifying %d references", len(refs)), len(refs))
	outcomes, err := consume.VerifyAll(ctx, refs, o, func(verify.Outcome) { one() })
	if err != nil {
		return err
	}
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
