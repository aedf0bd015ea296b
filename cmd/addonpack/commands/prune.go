package commands

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/addonpack/addonpack/pkg/prune"
)

func newPrune(g *globals) *cobra.Command {
	var (
		opts    prune.Options
		protect string
		yes     bool
		f       format
	)
	cmd := &cobra.Command{
		Use:   "prune REPO (--keep N | --keep-range RANGE | --tag TAG)... [--yes]",
		Short: "Delete older releases of an add-on with their signatures, attestations and referrers",
		Long:  pruneHelp,
		Example: `  addonpack prune localhost:5000/addons/hello --keep 1
  addonpack prune localhost:5000/addons/hello --keep 1 --format json
  addonpack prune localhost:5000/addons/hello --keep 2 --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			repo, err := g.reference(args[0])
			if err != nil {
				return err
			}
			if repo.Tag != "" || repo.Digest != "" {
				return usageError{fmt.Errorf("prune takes a repository, not %s: name releases to delete with --tag", args[0])}
			}
			if protect != "" {
				if opts.Protect, err = prune.LoadPins(protect); err != nil {
					return err
				}
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			r := c
			plan, err := prune.NewPlan(ctx, r, repo, opts)
			if errors.Is(err, prune.ErrOptions) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			out := prune.Report{DryRun: true, Plan: plan}
			if !yes && len(plan.Delete) > 0 && f == formatText {
				plan.WriteText(g.streams.Out)
				if yes, err = g.confirm(plan); err != nil {
					return err
				}
				if !yes {
					fmt.Fprintln(g.streams.Out, plan.DryRunNote())
					return nil
				}
			}
			if yes {
				out.DryRun = false
				out.Result, err = prune.Execute(ctx, r, repo, plan)
				if err != nil {
					if out.Result != nil && len(out.Result.Deleted) > 0 {
						out.Result.WriteText(g.streams.Err)
					}
					return err
				}
			}
			return f.print(g.streams.Out, out, out.WriteText)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opts.Keep, "keep", 0, "keep the N newest releases by semantic version")
	fl.StringVar(&opts.KeepRange, "keep-range", "", `also keep the releases this semver range matches (e.g. ">=1.0.0 <2.0.0")`)
	fl.StringSliceVar(&opts.Tags, "tag", nil, "delete this tag (repeatable; the only way to delete a tag that is not a semver version)")
	fl.StringVar(&protect, "protect", "", "never delete a digest this file pins: a stack lock file, or sha256: digests one per line")
	fl.BoolVar(&yes, "yes", false, "delete without asking; without it prune only prints what would go")
	addFormat(cmd, &f, true)
	return cmd
}

// confirm asks on a terminal for the repository's name; false when stdin
// is not a terminal or the answer differs.
func (g *globals) confirm(plan *prune.Plan) (bool, error) {
	in, ok := g.streams.In.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return false, nil
	}
	fmt.Fprintf(g.streams.Err, "Type %s to delete these %d manifests and tags: ", plan.Repository, len(plan.Delete))
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return strings.TrimSpace(line) == plan.Repository, nil
}

const pruneHelp = `prune deletes an add-on's older releases from REPO with everything that vouches for them:
the release tag, its manifest, cosign's sha256-<hex>.sig/.att/.sbom tags, its OCI referrers
(Sigstore bundles, SBOMs), through the referrers API or, on registries without it such as
distribution 2.8, the referrers tag schema — and, recursively, theirs. Left-overs of an
interrupted prune (vouching tags whose manifest is gone) go too.

Releases are the tags that are strict semantic versions ("_" standing for "+"), ordered by
version, never by date: --keep N keeps the N newest, --keep-range RANGE also keeps those it
matches (range syntax as in stacks: ">=1.0.0 <2.0.0", "^1.2", "1.x"). Other tags (latest, stable) are never deleted unless named with --tag.

Never deleted: a digest another kept tag points at, or one --protect FILE pins (a stack lock
file, addons.lock, or a list of sha256: digests, one per line), nor anything such a digest
reaches — its signatures, attestations, referrers, what an index lists — whatever tag points
at it: an old release's sha256-<hex>.sig tag moved onto a kept release's signature leaves that
signature in place, reported as skipped with what needs it. A release tag on such a digest is
only untagged, where the registry can delete a tag alone (distribution 2.8 cannot: the tag is
then reported skipped).

Without --yes nothing is deleted: prune prints what would go (text, or --format json); on a terminal
it asks for the repository's name to confirm. Each release's manifest is deleted before what
vouches for it, so an interruption never leaves a tagged release unverifiable; run prune again
to finish (specs/prune.md). A registry that refuses deletes (distribution without
storage.delete.enabled) fails on the first deletion, with nothing deleted. Blobs are left to
the registry's garbage collection.`
