package commands

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/mirror"
)

func newMirror(g *globals) *cobra.Command {
	var (
		f           format
		o           mirror.Options
		fromTarball string
	)
	cmd := &cobra.Command{
		Use:   "mirror FILE [--from-tarball TARBALL]",
		Short: "Copy the releases a mirror file selects, verified at the source and the destination; run it again and again",
		Long: `mirror copies what a Mirror file (specs/mirror.md) selects — repositories, a semver range, a
limit — to its registry prefix or tarball: each release verified at the source under the file's
policy, copied with its signatures and referrers, verified at the destination, then tagged. A
second run writes nothing; a destination tag at another digest is drift (exit 10), moved only with
--force. --from-tarball imports a mirror tarball's releases the same way.`,
		Example: `  addonpack mirror mirror.yaml --dry-run
  addonpack mirror mirror.yaml
  addonpack mirror mirror-tarball.yaml
  addonpack mirror --from-tarball mirror.tar mirror-airgap.yaml -o json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			m, err := mirror.Load(args[0])
			if err == nil {
				o.Client, err = g.client()
			}
			if err != nil {
				return err
			}
			o.Getenv, o.Warnings = g.getenv, g.streams.Err
			done := g.progress.Activity("Mirroring " + args[0])
			var res *mirror.Result
			if fromTarball != "" {
				res, err = mirror.Import(cmd.Context(), fromTarball, m, o)
			} else {
				res, err = mirror.Run(cmd.Context(), m, o)
			}
			done(err)
			if res != nil {
				err = errors.Join(f.print(g.streams.Out, res, res.WriteText), err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.DryRun, "dry-run", false, "select, verify at the source and compare with the destination; write nothing")
	fl.BoolVar(&o.Force, "force", false, "copy a release whose destination tag points at another digest, moving the tag")
	fl.IntVar(&o.Concurrency, "concurrency", mirror.DefaultConcurrency, "releases handled at once")
	fl.StringVar(&fromTarball, "from-tarball", "", "import the releases of this mirror tarball that FILE selects into FILE's registry destination")
	addFormat(cmd, &f, true)
	return cmd
}
