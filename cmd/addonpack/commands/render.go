package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/semver"
)

// renderOptions are the flags of render.
type renderOptions struct {
	g                            *globals
	values, out, format, forTool string
	force                        bool
	gitops                       deliver.GitOps
	keyFile                      string
	vf                           verifyFlags
	trustTags                    bool
	stackFile                    string
	kubeVersion                  string
	vr                           versionFlag
}

func newRender(g *globals) *cobra.Command {
	o := &renderOptions{g: g}
	cmd := &cobra.Command{
		Use:   "render (REF|LAYOUT|DIR | --stack FILE) [--key PUB | --policy FILE | --insecure-skip-verify]",
		Short: "Render an add-on with your config for kubectl, kustomize, Flux or Argo CD",
		Long:  renderHelp + versionHelp,
		Example: `  addonpack render localhost:5000/addons/hello:0.1.0 --key release.pub --values my-hello.yaml | kubectl apply -f -
  addonpack render ./hello --values my-hello.yaml
  addonpack render localhost:5000/addons/hello:0.1.0 --key release.pub --format kustomize -o ./hello-rendered && kubectl apply -k ./hello-rendered
  addonpack render --for flux localhost:5000/addons/hello:0.1.0 --key release.pub --public-key release.pub
  addonpack render --for argocd localhost:5000/addons/hello:0.1.0 --key release.pub --values my-hello.yaml
  addonpack render --for argocd --plugin addonpack localhost:5000/addons/hello:0.1.0 --policy policy.yaml --values my-hello.yaml
  addonpack render localhost:5000/addons/hello --version 0.x --key release.pub --values my-hello.yaml
  addonpack render --stack addons.yaml --key release.pub`,
		Args: maxArgs(1),
		RunE: o.run,
	}
	f := cmd.Flags()
	f.StringVar(&o.values, "values", "", "your config object (YAML or JSON; - for stdin); default: the packed defaults")
	f.StringVarP(&o.out, "output", "o", "-", "where to write: - for stdout, a file for yaml/json, a directory for kustomize")
	f.StringVar(&o.format, "format", "yaml", "yaml, json or kustomize")
	f.BoolVar(&o.force, "force", false, "with --format kustomize, replace a non-empty -o directory")
	f.StringVar(&o.forTool, "for", "", "print the objects flux or argocd need to consume the artifact from the registry")
	f.StringVar(&o.keyFile, "public-key", "", "with --for flux: cosign public key Flux verifies the signature with")
	f.StringVar(&o.gitops.Namespace, "namespace", "", "with --for: namespace of the Flux/Argo CD objects (default flux-system / argocd)")
	f.StringVar(&o.gitops.TargetNamespace, "target-namespace", "", "with --for: namespace for the add-on's namespaced objects")
	f.StringVar(&o.gitops.Interval, "interval", "10m", "with --for: reconciliation interval")
	f.StringVar(&o.gitops.Plugin, "plugin", "", "with --for argocd: the Application renders with this addonpack plugin (policy export --for argocd), which verifies under its policy")
	f.StringVar(&o.stackFile, "stack", "", "render every add-on of this locked stack file, in install order")
	f.StringVar(&o.kubeVersion, "kube-version", "", "the target cluster's Kubernetes version (1.30.2, v1.30.2-eks-1), for components that depend on it; with --stack, overrides the stack file's kubernetes")
	o.vf.add(cmd, true)
	o.vr.add(cmd)
	f.BoolVar(&o.trustTags, "trust-relocated-tags", false, "also apply the registry's relocation record (copy --images) where it moves an image the add-on names by tag only somewhere other than beside the add-on (the record is unsigned; digest-pinned images, and tag-only ones moved beside the add-on as copy does, are relocated without it)")
	return cmd
}

// run renders a locked stack, the GitOps objects of a reference, or one
// package.
func (o *renderOptions) run(cmd *cobra.Command, args []string) error {
	ctx := cmd.Context()
	if (o.stackFile != "") == (len(args) == 1) {
		return usageError{fmt.Errorf("give one REF, LAYOUT or DIR, or --stack FILE")}
	}
	if o.stackFile != "" {
		if o.values != "" {
			return usageError{fmt.Errorf("--values cannot be used with --stack: the stack file gives each add-on its values")}
		}
		if err := o.vr.refuse("--stack: the stack file gives each add-on its range"); err != nil {
			return err
		}
		return o.g.renderStack(cmd, o.stackFile, o.format, o.out, o.force, o.forTool, o.keyFile, o.kubeVersion, o.gitops, &o.vf)
	}
	kube, err := config.KubeVersionFlag(o.kubeVersion)
	if err != nil {
		return err
	}
	arg, err := o.vr.pin(ctx, o.g, args[0])
	if err != nil {
		return err
	}
	if o.forTool != "" {
		return o.g.renderFor(cmd, arg, o.forTool, o.values, o.keyFile, kube, o.gitops, &o.vf)
	}
	return o.renderPackage(ctx, arg, kube)
}

// renderPackage renders one add-on with the user's values, as YAML, JSON
// or a kustomize directory.
func (o *renderOptions) renderPackage(ctx context.Context, arg string, kube semver.Version) error {
	data, name, err := config.ReadValues(o.values, o.g.streams.In)
	if err != nil {
		return err
	}
	c, err := o.g.consumerFor(ctx, &o.vf, arg)
	if err != nil {
		return err
	}
	// A copy made with 'addonpack copy --images' uses its relocated images.
	c.KubeVersion, c.Relocated, c.TrustRelocatedTags = kube, true, o.trustTags
	p, err := c.Package(ctx, arg)
	if err != nil {
		return usage(err)
	}
	defer p.Close()
	if o.format == "kustomize" {
		if o.out == "" || o.out == "-" {
			return usageError{fmt.Errorf("--format kustomize writes a directory: pass -o DIR")}
		}
		root, err := p.WriteKustomize(ctx, data, name, o.out, o.force)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.g.streams.Err, "Wrote %s: kubectl apply -k %s\n", o.out, root)
		return nil
	}
	rendered, err := p.RenderAs(ctx, data, name, o.format)
	if err != nil {
		return usage(err)
	}
	return o.g.write(o.out, rendered)
}

// renderFor prints Flux or Argo CD objects for a registry reference; with
// values, they carry them as a patch of the package's root kustomization.
func (g *globals) renderFor(cmd *cobra.Command, arg, tool, values, keyFile string, kube semver.Version, gitops deliver.GitOps, vf *verifyFlags) error {
	ctx := cmd.Context()
	ref, err := g.reference(arg)
	if err != nil {
		return err
	}
	if err := deliver.CheckTool(tool); err != nil {
		return usageError{err}
	}
	data, name, err := config.ReadValues(values, g.streams.In)
	if err != nil {
		return err
	}
	c, err := g.consumerFor(ctx, vf, arg)
	if err != nil {
		return err
	}
	if gitops.PublicKey, err = c.UseFluxKey(ctx, keyFile, g.getenv); err != nil {
		return err
	}
	c.KubeVersion = kube
	gitops.PlainHTTP = g.plainHTTP
	out, _, err := c.GitOps(ctx, ref, "", data, name, tool, gitops)
	if err != nil {
		return usage(err)
	}
	return g.write("-", out)
}

const renderHelp = `render fetches the add-on by digest (or reads a source directory), validates --values
against the packed schema after the packed defaults are applied (listing every failing
field), and builds the kustomization in process. A reference is verified (--key, --policy,
or an explicit --insecure-skip-verify) before any content is read; a source DIR is yours
and is not. The same reference, values and flags
always give byte-identical output. A --values object of an older config version the add-on
still reads is converted to its current version first (stderr: "FILE: converted v1alpha1 →
v1beta1", in every format; addonpack config convert --format json shows the result and the
rules applied, diff --format json the rules of each side).

  --format yaml        multi-document YAML for kubectl apply -f - (default)
  --format json        one JSON v1 List
  --format kustomize   a directory (-o DIR) with the config wired into the kustomization,
                       for kubectl apply -k, Flux or Argo CD; written atomically

--for flux|argocd prints the objects those controllers need to consume the artifact straight
from the registry, pinned by digest (Flux: OCIRepository with a layerSelector and, with
--public-key, cosign verification, plus a Kustomization; Argo CD: an Application with an OCI
source). Without --values they apply the package as published, with its default config.
With --values the objects carry your resolved config as a patch of the package's config
object (Kustomization spec.patches, Application source.kustomize.patches) and the
components it enables; render checks in process that the package built that way equals
render --values, and refuses otherwise (a component that reads the config in its own
replacements: commit --format kustomize output instead). --for argocd --plugin NAME writes
an Application that renders with the addonpack plugin NAME (policy export --for argocd):
the plugin verifies the reference under its policy and renders it with your values.

--stack FILE renders every add-on of a locked stack (addonpack lock FILE first), each fetched
by its locked digest and verified again, with the values the stack file gives it, in install
order: dependencies first. yaml is one stream; kustomize writes one numbered directory per
add-on and order.txt; --for flux gives each Kustomization dependsOn edges, --for argocd each
Application a sync wave per level.

`
