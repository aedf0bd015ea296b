package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/locate"
	"github.com/addonpack/addonpack/pkg/verify"
)

func newInspect(g *globals) *cobra.Command {
	var (
		f    format
		name string
	)
	cmd := &cobra.Command{
		Use:   "inspect REF|LAYOUT",
		Short: "Show an add-on artifact's metadata without downloading its content",
		Long: `inspect resolves REF (or opens an OCI layout "PATH[:TAG]"), fetches the manifest and the
config blob by digest, checks them, and prints the add-on's name, version, config type,
dependencies, images, annotations and layers. The content layer is not downloaded.`,
		Example: `  addonpack inspect localhost:5000/addons/hello:0.1.0
  addonpack inspect ./hello-layout -o json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := g.source(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			loaded, err := artifact.Load(cmd.Context(), src)
			if err != nil {
				return err
			}
			// inspect verifies nothing and shows what is there, so a
			// reference that names another add-on is a warning, not a
			// refusal: it is how a substitution is diagnosed.
			if a, err := g.locate(args[0]); err == nil && a.Kind == locate.Reference {
				if err := verify.Claim(a.Ref, name, nil).Check(a.Ref.String(), loaded.Addon, loaded.Manifest.Annotations); err != nil {
					fmt.Fprintf(g.streams.Err, "Warning: %v; consumers refuse it (exit 9)\n", err)
				}
			}
			info := loaded.Info()
			return f.print(g.streams.Out, info, info.WriteText)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the add-on the reference should hold, when its repository is named otherwise (only warns)")
	addFormat(cmd, &f, true)
	return cmd
}
