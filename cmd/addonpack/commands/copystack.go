package commands

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/stack"
)

// copyStack runs copy --stack FILE: with --to-tarball, every add-on of
// FILE's lock into one tarball; with --from-tarball, every add-on of a
// stack tarball to DST/NAME, then FILE and its lock written for there.
func (g *globals) copyStack(cmd *cobra.Command, file string, args []string, toTarball, fromTarball string, vf *verifyFlags, opts relocate.Options, f format) error {
	ctx := cmd.Context()
	if vf.name != "" {
		return usageError{errors.New("--name cannot be used with --stack: the lock names each add-on")}
	}
	var st *stack.Stack
	if toTarball != "" {
		var err error
		if st, err = stack.Load(file); err != nil {
			return err
		}
		vf.DefaultPolicy(st.Dir(), st.Policy)
	}
	p, err := vf.policy(ctx, g)
	if err != nil {
		return err
	}
	if p == nil {
		fmt.Fprintln(g.streams.Err, "Warning: --insecure-skip-verify: the add-ons are not verified at the source nor at the destination")
	}
	opts.Policy = p
	c, err := g.client()
	if err != nil {
		return err
	}
	var dst registry.Reference
	if fromTarball != "" {
		if dst, err = g.reference(args[0]); err != nil {
			return err
		}
	}
	res, err := stack.CopyStack(ctx, c, st, file, toTarball, fromTarball, dst, opts)
	if err != nil {
		return err
	}
	if toTarball != "" && len(res.Copies) > 0 && res.Copies[0].TrustedRoot != "" {
		fmt.Fprintf(g.streams.Err, "carried trusted root %s (pin this digest in the policy on the other side)\n", res.Copies[0].TrustedRoot)
	}
	return f.print(g.streams.Out, res, func(w io.Writer) error { return res.WriteText(w, g.streams.Err) })
}
