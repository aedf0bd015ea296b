package commands

import (
	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/artifact"
)

func newInspect(g *globals) *cobra.Command {
	var f format
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
			info := loaded.Info()
			return f.print(g.streams.Out, info, info.WriteText)
		},
	}
	addFormat(cmd, &f, true)
	return cmd
}
