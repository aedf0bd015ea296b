package commands

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/stack"
)

func newLock(g *globals) *cobra.Command {
	var (
		vf     verifyFlags
		f      format
		check  bool
		update bool
		down   bool
		signer bool
		prefer string
	)
	cmd := &cobra.Command{
		Use:   "lock [FILE] (--key PUB | --policy F | --insecure-skip-verify) [--check | --update [NAME...]]",
		Short: "Resolve a stack of add-ons to verified digests and write addons.lock",
		Long:  lockHelp,
		Example: `  addonpack lock addons.yaml --key release.pub
  addonpack lock addons.yaml --check
  addonpack lock addons.yaml --key release.pub --update hello`,
		Args: cobra.ArbitraryArgs, // FILE, then add-on names with --update
		RunE: func(cmd *cobra.Command, args []string) error {
			path, names := "addons.yaml", []string(nil)
			if len(args) > 0 {
				path, names = args[0], args[1:]
			}
			if len(names) > 0 && !update {
				return usageError{fmt.Errorf("add-on names go with --update")}
			}
			if check && update {
				return usageError{fmt.Errorf("give --check or --update, not both")}
			}
			if signer && !update {
				return usageError{fmt.Errorf("--allow-signer-change goes with --update")}
			}
			opts := stack.Options{AllowDowngrade: down, AllowSignerChange: signer}
			switch prefer {
			case "highest":
			case "lowest":
				opts.Lowest = true
			default:
				return usageError{fmt.Errorf("--prefer must be highest or lowest, not %q", prefer)}
			}
			st, err := stack.Load(path)
			if err != nil {
				return err
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			var l *stack.Lock
			if check {
				// Given trust, --check also verifies each locked add-on and
				// binds it to its entry; without, it needs no key.
				var bind stack.Loader
				if vf.Given() {
					if bind, err = g.consumer(cmd.Context(), &vf); err != nil {
						return err
					}
				}
				l, err = stack.CheckLock(cmd.Context(), c, st, bind)
			} else {
				vf.DefaultPolicy(st.Dir(), st.Policy)
				var loader *consume.Consumer
				if loader, err = g.consumer(cmd.Context(), &vf); err != nil {
					return err
				}
				reg := stack.Remote{Tags: c, Loader: loader}
				if update {
					l, err = stack.UpdateLock(cmd.Context(), reg, st, names, opts)
				} else {
					l, err = stack.WriteLock(cmd.Context(), reg, st, opts)
				}
			}
			if err != nil {
				return err
			}
			return f.print(g.streams.Out, l, func(w io.Writer) error { return l.WriteText(w, stack.LockPath(path), check) })
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "compare the lock with the stack file and the registries; exit 10 on drift")
	cmd.Flags().BoolVar(&update, "update", false, "resolve again: all add-ons, or only those named")
	cmd.Flags().BoolVar(&down, "allow-downgrade", false, "with --update: accept a version below the locked one (recorded in the lock)")
	cmd.Flags().BoolVar(&signer, "allow-signer-change", false, "with --update: accept a version none of the locked version's signers signed")
	cmd.Flags().StringVar(&prefer, "prefer", "highest", "which satisfying version to pick: highest or lowest")
	vf.add(cmd, true)
	addFormat(cmd, &f, true)
	return cmd
}

const lockHelp = `lock reads the stack file FILE (default addons.yaml), resolves every add-on it names and their
dependencies (declared in each signed config blob) to the highest version every range admits, and
writes addons.lock beside FILE: name, repository, signed version, tag, verified digest, who signed it
(key ids, keyless issuer and subject), who required it, and the install order. Each add-on is verified under its own repository's policy scope; a
parent's signature never vouches for a dependency. The same registry state gives a byte-identical lock.

--check exits 0 when the lock matches FILE and every locked tag still points at its digest, 10
otherwise, naming each difference, and 3 for a lock no resolution could have written; with trust
flags it also binds each add-on's signed name, version and dependencies (exit 3 when they differ).
--update resolves again (every add-on, or those named; the others stay), moving each only within its
upgrade policy and never down without --allow-downgrade, and never to an artifact none of the
locked signers signed (keyless subjects compared without a workflow's @refs/...), or that this run
did not verify (--offline, --insecure-skip-verify), without --allow-signer-change (exit 9).
Without --key or --policy, the stack file's policy is used. The rules: specs/stack.md sections 4.3
to 4.8.`
