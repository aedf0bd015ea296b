package commands

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/semver"
)

// errDiffer makes `diff --exit-code` exit 1 when the renderings differ.
type errDiffer struct{}

func (errDiffer) Error() string { return "the renderings differ" }

func newDiff(g *globals) *cobra.Command {
	var (
		values   string
		kube     string
		exitCode bool
		vf       verifyFlags
		vr       versionFlag
		f        format
	)
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show a unified diff of the rendered output of two versions (or a version and a source dir)",
		Long:  diffHelp,
		Example: `  addonpack diff localhost:5000/addons/hello:0.1.0 localhost:5000/addons/hello:0.2.0 --key release.pub --values my-hello.yaml
  addonpack diff localhost:5000/addons/hello:0.1.0 ./hello --key release.pub --exit-code
  addonpack diff localhost:5000/addons/hello:0.1.0 localhost:5000/addons/hello --version 0.x --key release.pub
  addonpack diff localhost:5000/addons/hello:0.1.0 ./hello --key release.pub --values my-hello.yaml --format json
  addonpack diff localhost:5000/addons/hello:0.1.0 localhost:5000/addons/hello:0.2.0 --key release.pub --kube-version v1.30.2`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			kubeVersion, err := config.KubeVersionFlag(kube)
			if err != nil {
				return err
			}
			data, name, err := config.ReadValues(values, g.streams.In)
			if err != nil {
				return err
			}
			refs, err := vr.pinRepositories(cmd.Context(), g, args)
			if err != nil {
				return err
			}
			a, sourceA, err := g.renderOne(cmd.Context(), refs[0], data, name, kubeVersion, &vf)
			if err != nil {
				return err
			}
			b, sourceB, err := g.renderOne(cmd.Context(), refs[1], data, name, kubeVersion, &vf)
			if err != nil {
				return err
			}
			rep, err := deliver.NewDiffReport(a, b, sourceA, sourceB, args[0], args[1])
			if err != nil {
				return err
			}
			if err := f.print(g.streams.Out, rep, func(w io.Writer) error { return rep.WriteText(w, g.streams.Err) }); err != nil {
				return err
			}
			if exitCode && rep.Differ {
				return errDiffer{}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&values, "values", "", "config object used for both renderings (- for stdin)")
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when the renderings differ")
	cmd.Flags().StringVar(&kube, "kube-version", "", "the target cluster's Kubernetes version (1.30.2, v1.30.2-eks-1), for both sides' components that depend on it")
	vf.add(cmd, true)
	vr.add(cmd)
	addFormat(cmd, &f, true)
	return cmd
}

// renderOne renders one side of a diff; it returns the name of what was
// rendered too (the pinned reference, or the layout or directory).
func (g *globals) renderOne(ctx context.Context, arg string, values []byte, name string, kube semver.Version, vf *verifyFlags) (deliver.Rendering, string, error) {
	p, err := g.open(ctx, arg, vf, kube, false)
	if err != nil {
		return deliver.Rendering{}, "", err
	}
	defer p.Close()
	r, err := p.RenderConverted(ctx, values, name)
	return r, p.Name, err
}

const diffHelp = `diff renders A and B — registry references, OCI layouts or source directories — with the
same --values, and prints a unified diff of the output, so an upgrade can be reviewed
before it is applied and CI can publish only on change (--exit-code: exit 1 when they
differ, like git diff). Each side converts --values to its own config version, as render
does, so diffing two releases whose config type changed shows what the upgrade does to
your configuration (stderr names each conversion).

--format json prints {a, b, differ, diff}: per side, the source rendered and the conversion
of --values (each step with the rules applied, as config convert --format json lists them),
whether the renderings differ, and the unified diff.

--kube-version gives the target cluster's Kubernetes version to both sides, as render's
does: required when a side has a component that depends on it (kubernetes: in addon.yaml),
so an upgrade review shows the components the new release enables or drops for your cluster.

--version RANGE pins each of A and B that names a repository without a tag to the highest
version the range matches (at least one must), as for render: so an installed tag can be
compared with the newest release in a range before upgrading.`
