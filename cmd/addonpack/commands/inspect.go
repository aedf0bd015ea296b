package commands

import (
	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/verify"
)

func newInspect(g *globals) *cobra.Command {
	var (
		f          format
		name       string
		keyRefs    []string
		signatures bool
		vr         versionFlag
	)
	cmd := &cobra.Command{
		Use:   "inspect REF|LAYOUT [--key PUB]",
		Short: "Show an add-on artifact's metadata without downloading its content",
		Long: `inspect resolves REF (or opens an OCI layout "PATH[:TAG]"), fetches the manifest and the
config blob by digest, checks them, and prints the add-on's name, version, config type,
dependencies, images, annotations and layers. The content layer is not downloaded.
For an add-on with profiles (addonpack.dev/v1alpha2: a component or overlay chosen by an
enum value of the config, or a component chosen by the cluster's Kubernetes version) it
lists them, as the builder rendered them: render selects one with --values and
--kube-version.

From a registry it also says whether an SBOM attestation is attached (push --sbom; unverified).
With --key it verifies the artifact requiring that SBOM (exit code 9 when it does not verify)
and shows the images it records with their digests: pinned, resolved at push time, or
unresolved.

With --signatures it lists every signature and attestation stored for the digest (both
storage schemes) with its kind, format and signer as written: a keyless certificate's issuer,
subject and Fulcio extensions (the form a policy's identities take, to copy into one with
--format json) or a bundle's key hint. Nothing in that list is verified: verify decides.

--version RANGE, with REF naming a repository without a tag, inspects the highest version the
semver range matches (a pre-release only where the range names one: specs/stack.md), resolved
once to a digest and inspected as REPO:TAG@DIGEST ("resolved …" on stderr).`,
		Example: `  addonpack inspect localhost:5000/addons/hello:0.1.0
  addonpack inspect localhost:5000/addons/hello:0.1.0 --key release.pub
  addonpack inspect localhost:5000/addons/hello:0.1.0 --signatures --format json
  addonpack inspect ./hello-layout --format json
  addonpack inspect localhost:5000/addons/hello --version 0.x`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			arg, err := vr.pin(ctx, g, args[0])
			if err != nil {
				return err
			}
			var o consume.InspectOptions
			if len(keyRefs) > 0 {
				if o.SBOMPolicy, err = verify.PolicyFromKeys(ctx, keyRefs, verify.KeyOptions{Getenv: g.getenv}); err != nil {
					return err
				}
			}
			o.Signatures = signatures
			c, err := g.consumerFor(ctx, nil, arg)
			if err != nil {
				return err
			}
			c.Name = name
			out, err := c.Inspect(ctx, arg, o)
			if err != nil {
				return usage(err)
			}
			return f.print(g.streams.Out, out, out.WriteText)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the add-on the reference should hold, when its repository is named otherwise (only warns)")
	cmd.Flags().BoolVar(&signatures, "signatures", false, "list every signature and attestation found, with its signer as written (key hint, or keyless issuer, subject and extensions); not verified")
	cmd.Flags().StringArrayVar(&keyRefs, "key", nil, "verify the SBOM with this public key and show the image digests it records (repeatable)")
	vr.add(cmd)
	addFormat(cmd, &f, true)
	return cmd
}
