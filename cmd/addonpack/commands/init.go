package commands

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/scaffold"
)

func newInit(g *globals) *cobra.Command {
	var (
		opts scaffold.Options
		f    format
	)
	cmd := &cobra.Command{
		Use:   "init DIR",
		Short: "Create a new, working add-on source directory",
		Long: `init writes addon.yaml, a kustomize base (Namespace, ServiceAccount, Deployment, Service),
a component-config schema with defaults, and the kustomize replacements that wire the
config into the manifests. DIR must be missing or empty.`,
		Example: `  addonpack init my-addon
  addonpack init ./addons/dns --name cluster-dns`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := scaffold.Create(args[0], opts)
			if err != nil {
				return err
			}
			out := struct {
				Dir   string   `json:"dir"`
				Files []string `json:"files"`
			}{args[0], files}
			fmt.Fprintf(g.streams.Err, "Created add-on %s:\n", args[0])
			err = f.print(g.streams.Out, out, func(w io.Writer) error {
				for _, name := range files {
					if _, err := fmt.Fprintf(w, "%s\n", name); err != nil {
						return err
					}
				}
				return nil
			})
			fmt.Fprintf(g.streams.Err, "Next: addonpack build %s\n", args[0])
			return err
		},
	}
	cmd.Flags().StringVar(&opts.Name, "name", "", "add-on name (a DNS-1123 label); default: the directory name")
	addFormat(cmd, &f, true)
	return cmd
}
