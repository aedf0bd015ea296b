package commands

import (
	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/policyexport"
)

func newPolicy(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Work with verification policies (specs/policy.md)",
	}
	cmd.AddCommand(newPolicyExport(g))
	return cmd
}

func newPolicyExport(g *globals) *cobra.Command {
	var (
		o        policyexport.Options
		ref, out string
		force    bool
	)
	cmd := &cobra.Command{
		Use:   "export POLICY --for flux|argocd|kyverno|policy-controller [--ref REF] [--lossy] [-o DIR]",
		Short: "Write a verification policy as Flux, Argo CD, Kyverno or policy-controller objects",
		Long: `policy export writes POLICY for the controller that will enforce it in a cluster
(docs/gitops.md):

  flux               the scope that applies to --ref (or the policy's only scope): an
                     OCIRepository's spec.verify and the Secret it names (public keys, or the
                     trusted root of keyless identities); with --ref a whole OCIRepository,
                     without it a patch of spec.verify
  argocd             a Config Management Plugin running addonpack render --policy with the
                     whole policy: plugin.yaml, a ConfigMap (plugin, self-contained policy,
                     trusted roots) and a patch adding the sidecar to argocd-repo-server;
                     render --for argocd --plugin NAME writes Applications that use it
  kyverno            a ClusterPolicy verifying the images of the policy's images section
  policy-controller  ClusterImagePolicies for the same

What the target cannot enforce (a threshold, provenance or attestation rules, key windows,
certificate extensions, a trusted root it does not take) is refused, exit 2, every item
listed; --lossy writes it anyway with a "# addonpack: not enforced by …" line per item.
Output goes to stdout as one YAML stream, or with -o DIR one file per part.`,
		Example: `  addonpack policy export policy.yaml --for flux --ref localhost:5000/addons/hello:0.1.0
  addonpack policy export policy.yaml --for argocd -o ./argocd-plugin --force`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := policyexport.CheckTarget(o.For); err != nil {
				return usageError{err}
			}
			if ref != "" {
				r, err := g.reference(ref)
				if err != nil {
					return err
				}
				o.Ref = &r
			}
			o.PlainHTTP = g.plainHTTP
			res, err := policyexport.ExportFile(cmd.Context(), args[0], g.getenv, o)
			if err != nil {
				return err
			}
			return res.WriteOutput(g.streams.Out, g.streams.Err, out, force)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.For, "for", "", "flux, argocd, kyverno or policy-controller")
	f.StringVar(&ref, "ref", "", "flux: the add-on reference whose scope to export (and the OCIRepository's url)")
	f.BoolVar(&o.Lossy, "lossy", false, "write what the target can enforce, listing the rest as comments, instead of refusing")
	f.StringVarP(&out, "output", "o", "-", "- for stdout, or a directory for one file per part")
	f.BoolVar(&force, "force", false, "with -o DIR, replace files that exist")
	f.StringVar(&o.Name, "name", "addonpack", "base name of the objects written")
	f.StringVar(&o.Namespace, "namespace", "", "namespace of the namespaced objects (default flux-system / argocd)")
	f.StringVar(&o.Image, "image", policyexport.DefaultImage, "argocd: the addonpack image the plugin sidecar runs")
	f.StringVar(&o.Plugin, "plugin", "addonpack", "argocd: the plugin's name")
	return cmd
}
