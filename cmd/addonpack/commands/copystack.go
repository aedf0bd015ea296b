package commands

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/stack"
)

// copyStackArgs checks the arguments of copy --stack: none with
// --to-tarball, DST (a registry and path prefix) with --from-tarball.
func copyStackArgs(args []string, toTarball, fromTarball string) error {
	switch {
	case toTarball != "" && len(args) == 0, fromTarball != "" && len(args) == 1:
		return nil
	case toTarball == "" && fromTarball == "":
		return usageError{errors.New("--stack copies a locked stack across an air gap: give --to-tarball OUT, or --from-tarball IN and DST")}
	case toTarball != "":
		return usageError{fmt.Errorf("--stack --to-tarball takes no argument (the stack file names the add-ons), got %d", len(args))}
	}
	return usageError{fmt.Errorf("--stack --from-tarball takes one argument, DST (REGISTRY/PREFIX: each add-on goes to DST/NAME), got %d", len(args))}
}

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
		vf.defaultPolicy(st.Dir(), st.Policy)
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
	var (
		results []*relocate.Result
		lock    *stack.Lock
		wrote   string
	)
	if toTarball != "" {
		l, err := stack.ReadLock(stack.LockPath(file))
		if err != nil {
			return err
		}
		results, err = stack.ExportTarball(ctx, c, st, l, toTarball, opts)
		if err != nil {
			return err
		}
		lock, wrote = l, toTarball
		if len(results) > 0 && results[0].TrustedRoot != "" {
			fmt.Fprintf(g.streams.Err, "carried trusted root %s (pin this digest in the policy on the other side)\n", results[0].TrustedRoot)
		}
	} else {
		dst, err := g.reference(args[0])
		if err != nil {
			return err
		}
		lock, results, err = stack.ImportTarball(ctx, c, fromTarball, dst, file, opts)
		if err != nil {
			return err
		}
		wrote = filepath.Clean(file) + " and " + stack.LockPath(file)
	}
	return f.print(g.streams.Out, map[string]any{"lock": lock, "copies": results}, func(w io.Writer) error {
		for _, r := range results {
			fmt.Fprintf(g.streams.Err, "copied %s -> %s (%d manifests)\n", r.Source, r.Destination, len(r.Items))
		}
		_, err := fmt.Fprintf(w, "wrote %s\n", wrote)
		return err
	})
}
