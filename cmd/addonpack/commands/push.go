package commands

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/push"
)

func newPush(g *globals) *cobra.Command {
	var f format
	cmd := &cobra.Command{
		Use:   "push DIR|LAYOUT REF",
		Short: "Build an add-on (or take a built OCI layout) and push it to a registry",
		Long: `push builds DIR exactly as 'addonpack build' does — or takes an OCI layout directory or
tarball written by 'addonpack build -o/--tarball' ("PATH" or "PATH:TAG") — and pushes it
to REF, uploading only the blobs the registry does not have. It prints REPO@sha256:….

Registries on loopback (localhost, 127.0.0.0/8, [::1]) are reached over plain HTTP
unless they speak TLS; any other registry needs HTTPS or --plain-http.`,
		Example: `  addonpack push ./hello localhost:5000/addons/hello:0.1.0
  addonpack build ./hello --tarball hello.tar && addonpack push hello.tar registry.example.com/addons/hello:0.1.0`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := g.reference(args[1])
			if err != nil {
				return err
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			bopts, err := g.buildOptions(cmd.Context())
			if err != nil {
				return err
			}
			res, err := push.Push(cmd.Context(), c, args[0], ref, push.Options{Build: bopts})
			if err != nil {
				return err
			}
			return f.print(g.streams.Out, res, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "%s\n", res.Ref)
				return err
			})
		},
	}
	addFormat(cmd, &f, true)
	return cmd
}
