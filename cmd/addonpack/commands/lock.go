package commands

import (
	"fmt"
	"io"
	"path/filepath"

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
			opts := stack.Options{}
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
				if vf.trustGiven() {
					if bind, err = g.consumer(cmd.Context(), &vf); err != nil {
						return err
					}
				}
				l, err = stack.CheckLock(cmd.Context(), c, st, bind)
			} else {
				vf.defaultPolicy(st.Dir(), st.Policy)
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
			return f.print(g.streams.Out, l, func(w io.Writer) error { return writeLockText(w, l, stack.LockPath(path), check) })
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "compare the lock with the stack file and the registries; exit 10 on drift")
	cmd.Flags().BoolVar(&update, "update", false, "resolve again: all add-ons, or only those named")
	cmd.Flags().StringVar(&prefer, "prefer", "highest", "which satisfying version to pick: highest or lowest")
	vf.add(cmd, true)
	addFormat(cmd, &f, true)
	return cmd
}

// writeLockText prints the install order with versions and digests.
func writeLockText(w io.Writer, l *stack.Lock, path string, checked bool) error {
	byName := map[string]stack.LockedAddon{}
	for _, a := range l.Addons {
		byName[a.Name] = a
	}
	for _, name := range l.Order {
		a := byName[name]
		if _, err := fmt.Fprintf(w, "%-24s %-12s %s@%s\n", a.Name, a.Version, a.Repository, a.Digest); err != nil {
			return err
		}
	}
	verb := "wrote"
	if checked {
		verb = "up to date:"
	}
	_, err := fmt.Fprintf(w, "%s %s\n", verb, filepath.Clean(path))
	return err
}

const lockHelp = `lock reads the stack file FILE (default addons.yaml; specs/stack.md section 4), resolves
every add-on it names and their dependencies — declared in each add-on's signed config blob —
from version ranges to one version per repository (the highest that every range admits), and
writes addons.lock beside FILE: each add-on's name, repository, signed version, tag, verified
manifest digest and who required it with which range, and the install order. Every add-on is
verified under the policy scope of its own repository before its dependencies are read; a
parent's signature never vouches for a dependency. The same registry state gives a
byte-identical lock.

--check exits 0 when the lock matches FILE and every locked tag still points at its locked
digest, and 10 otherwise, naming each difference; a lock no resolution could have written
(an add-on twice, an order that is not the install order, a tag that is not the version) is
refused with exit 3. Given --key, --policy or keyless flags, --check also verifies every
locked add-on and binds its signed name, version and dependencies to the lock (exit 3 when
they differ: specs/stack.md section 4.5). --update resolves again: every add-on, or
only those named, the others kept at their locked versions. Without --key or --policy, the
stack file's policy is used.`
