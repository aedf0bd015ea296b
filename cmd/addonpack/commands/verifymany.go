package commands

import (
	"context"
	"errors"
	"fmt"
	"io"

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
	errs := make([]error, len(outcomes))
	err = f.print(g.streams.Out, outcomes, func(w io.Writer) error {
		for _, o := range outcomes {
			switch {
			case o.Err != nil:
				fmt.Fprintf(g.streams.Err, "FAILED   %s: %v\n", o.Reference, o.Err)
			case o.Cached:
				fmt.Fprintf(w, "verified %s@%s (cached)\n", o.Reference, o.Digest)
			default:
				fmt.Fprintf(w, "verified %s@%s\n", o.Reference, o.Digest)
			}
		}
		return nil
	})
	for i, o := range outcomes {
		errs[i] = o.Err
	}
	return errors.Join(err, firstOf(errs, "references"))
}
