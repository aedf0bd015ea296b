package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/preflight"
)

func newPreflight(g *globals) *cobra.Command {
	var (
		f                 format
		values, stackFile string
		cfg               preflight.Config
		vf                verifyFlags
		vr                versionFlag
	)
	cmd := &cobra.Command{
		Use:   "preflight (REF|LAYOUT|DIR | --stack FILE) [--key PUB] [--kubeconfig FILE] [--as USER]",
		Short: "Check against the cluster, before any apply, that the add-on's objects would be accepted",
		Long: `preflight renders the add-on as render does (verified first, with --values, for the server's
version) and asks the cluster of the kubeconfig (--kubeconfig, --context; in a pod, its service
account), writing nothing: the add-on's kubernetes range admits the server; every kind is served
or created by a CRD of it or of an earlier add-on of the stack; the caller (--as, --as-group: that
user) may create and patch every object by name; an installed CRD keeps its served and stored
versions and fields. Webhooks served by the add-on's own Service are warned of. Exit 9 lists the
findings (docs/commands.md, docs/exit-codes.md).`,
		Example: `  addonpack preflight localhost:5000/addons/hello:0.1.0 --key release.pub --values my-hello.yaml
  addonpack preflight ./hello --as system:serviceaccount:addonpack-system:addonpack-installer --format json
  addonpack preflight --stack addons.yaml --key release.pub`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if (stackFile != "") == (len(args) == 1) || stackFile != "" && values != "" {
				return usageError{fmt.Errorf("give one REF, LAYOUT or DIR (and --values), or --stack FILE")}
			}
			cfg.Getenv = g.getenv
			kube, err := preflight.Connect(cfg)
			if err != nil {
				return err
			}
			var rep *preflight.Report
			if stackFile != "" {
				_, steps, c, err := g.lockedStack(ctx, stackFile, &vf)
				if err != nil {
					return err
				}
				if rep, err = preflight.Stack(ctx, kube, c, steps, kube.Options()); err != nil {
					return err
				}
			} else {
				arg, err := vr.pin(ctx, g, args[0])
				if err != nil {
					return err
				}
				data, name, err := config.ReadValues(values, g.streams.In)
				if err != nil {
					return err
				}
				c, err := g.consumerFor(ctx, &vf, arg)
				if err != nil {
					return err
				}
				if rep, err = preflight.Package(ctx, kube, c, arg, data, name, kube.Options()); err != nil {
					return usage(err)
				}
			}
			if err := f.print(g.streams.Out, rep, rep.WriteText); err != nil {
				return err
			}
			return rep.Err()
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&values, "values", "", "your config object (YAML or JSON; - for stdin); default: the packed defaults")
	fl.StringVar(&stackFile, "stack", "", "check every add-on of this locked stack file, in install order")
	fl.StringVar(&cfg.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)")
	fl.StringVar(&cfg.Context, "context", "", "kubeconfig context (default: its current context)")
	fl.StringVar(&cfg.As, "as", "", "review access for this user instead of the caller (SubjectAccessReview)")
	fl.StringArrayVar(&cfg.AsGroups, "as-group", nil, "a group to review access for (repeatable)")
	vf.add(cmd, true)
	vr.add(cmd)
	addFormat(cmd, &f, false)
	return cmd
}
