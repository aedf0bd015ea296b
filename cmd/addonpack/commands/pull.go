package commands

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/consume"
)

func newPull(g *globals) *cobra.Command {
	var (
		dir   string
		force bool
		vf    verifyFlags
		f     format
		stk   string
		vr    versionFlag
	)
	lf := newLimitFlags()
	cmd := &cobra.Command{
		Use:   "pull (REF|LAYOUT | --stack FILE) -o DIR (--key PUB | --policy FILE | --insecure-skip-verify)",
		Short: "Verify an add-on, fetch it by digest and unpack its package tree",
		Long:  pullHelp + versionHelp,
		Example: `  addonpack pull localhost:5000/addons/hello:0.1.0 -o ./hello-pulled --key release.pub
  addonpack pull localhost:5000/addons/hello:0.1.0 -o ./hello-pulled --policy policy.yaml --force
  addonpack pull ./hello-layout -o ./hello-unverified --insecure-skip-verify
  addonpack pull localhost:5000/addons/hello --version 0.x -o ./hello-newest --key release.pub
  addonpack pull --stack addons.yaml -o ./stack-pulled --key release.pub`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return usageError{fmt.Errorf("-o DIR is required")}
			}
			if (stk != "") == (len(args) == 1) {
				return usageError{fmt.Errorf("give one REF or LAYOUT, or --stack FILE")}
			}
			if stk != "" {
				if err := vr.refuse("--stack: the stack file gives each add-on its range"); err != nil {
					return err
				}
				return g.pullStack(cmd, stk, dir, force, &vf)
			}
			limits, err := lf.limits()
			if err != nil {
				return err
			}
			defer lessGC()()
			arg, err := vr.pin(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			c, err := g.consumerFor(cmd.Context(), &vf, arg)
			if err != nil {
				return err
			}
			art, err := c.Artifact(cmd.Context(), arg)
			if err != nil {
				return usage(err)
			}
			done := g.progress.Activity("Pulling " + args[0])
			res, err := art.Pull(cmd.Context(), dir, consume.PullOptions{Limits: &limits, Force: force})
			done(err)
			if err != nil {
				return err
			}
			summary := map[string]any{"reference": res.Ref, "digest": res.Descriptor.Digest, "dir": res.Dir,
				"name": res.Addon.Metadata.Name, "version": res.Addon.Spec.Version, "files": res.Stats.Files, "bytes": res.Stats.Bytes}
			return f.print(g.streams.Out, summary, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Pulled %s %s (%s): %d files, %d bytes in %s\n",
					res.Addon.Metadata.Name, res.Addon.Spec.Version, res.Ref, res.Stats.Files, res.Stats.Bytes, res.Dir)
				return err
			})
		},
	}
	cmd.Flags().StringVarP(&dir, "output", "o", "", "directory to unpack into (required)")
	cmd.Flags().BoolVar(&force, "force", false, "replace DIR if it is not empty")
	cmd.Flags().StringVar(&stk, "stack", "", "pull every add-on of this locked stack file into DIR/NAME")
	vf.add(cmd, true)
	vr.add(cmd)
	lf.add(cmd)
	addFormat(cmd, &f, false)
	return cmd
}

// lessGC makes the collector run less often for the rest of a pull, and
// returns the function that restores the previous settings. A pull's heap
// is small and bounded (manifest and config are capped, the layer goes
// through fixed buffers), and at the default GOGC a collection or two lands
// in a command that otherwise takes tens of milliseconds. The soft limit
// keeps the heap of any pull well under 128 MiB.
func lessGC() (restore func()) {
	gc := debug.SetGCPercent(400)
	limit := debug.SetMemoryLimit(96 << 20)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
}

const pullHelp = `pull resolves REF once to a digest and verifies its signatures (and provenance, when the
flags or the policy ask) BEFORE any content is read; then it fetches the manifest, config
and content layer by that digest (each checked for size and digest before it is parsed)
and unpacks the tree safely into DIR: regular files and directories only, no path leaving
DIR, bounded sizes. The tree is unpacked beside DIR and renamed into place only when
complete, so a failed or interrupted pull leaves DIR as it was. DIR must be missing or
empty, or --force replaces it.

Verification is required: --key or --policy, or an explicit --insecure-skip-verify (which
prints a warning). A digest verified under a policy is remembered for an hour in the cache.

--stack FILE pulls every add-on of a locked stack (addonpack lock FILE first), each by its
locked digest and verified again, into a subdirectory of DIR named as the add-on, and writes
DIR/order.txt: the add-ons in install order, dependencies first. DIR is written as a whole.

`
