package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/semver"
)

func newVersions(g *globals) *cobra.Command {
	var (
		f   format
		rng string
	)
	cmd := &cobra.Command{
		Use:   "versions REPO [--version RANGE]",
		Short: "List the versions a repository's tags name, in ascending order",
		Long: `versions reads every page of REPO's tag list (at most 10,000 tags) and prints the tags
that are strict semantic versions ("_" standing for "+"), lowest first, one per line; other tags
(latest, v1.2.3, signature tags) are left out. --version keeps those a range matches, with the
pre-release rule of specs/stack.md: a pre-release matches only a range that names a pre-release
of the same MAJOR.MINOR.PATCH.`,
		Example: `  addonpack versions localhost:5000/addons/hello
  addonpack versions localhost:5000/addons/hello --version 0.x --format json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := g.reference(args[0])
			if err != nil {
				return err
			}
			if repo.Tag != "" || repo.Digest != "" {
				return usageError{fmt.Errorf("%s: give a repository without a tag or digest", args[0])}
			}
			var opts semver.RepoOptions
			if rng != "" {
				r, err := semver.ParseRange(rng)
				if err != nil {
					return usageError{fmt.Errorf("--version: %w", err)}
				}
				opts.Range = &r
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := semver.ListRepository(cmd.Context(), c, repo, opts)
			if err != nil {
				return err
			}
			semver.WarnIgnored(g.streams.Err, list.Repository, list.Ignored)
			return f.print(g.streams.Out, list, list.WriteText)
		},
	}
	cmd.Flags().StringVar(&rng, "version", "", "keep only the versions this semver range matches")
	addFormat(cmd, &f, true)
	return cmd
}
