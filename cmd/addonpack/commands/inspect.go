package commands

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/sbom"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/verify"
)

// inspectOutput is the artifact's summary and, from a registry, its SBOM.
type inspectOutput struct {
	artifact.Info
	// Profiles are the variants the add-on selects inside itself
	// (addonpack.dev/v1alpha2: enum values and Kubernetes versions).
	Profiles []config.Profile `json:"profiles,omitempty"`
	SBOM     *sbom.Attachment `json:"sbom,omitempty"`
	// Signatures lists every signature and attestation found and who
	// each claims to be signed by (--signatures; not verified).
	Signatures []verify.Candidate `json:"signatures,omitempty"`
}

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
-o json) or a bundle's key hint. Nothing in that list is verified: verify decides.

--version RANGE, with REF naming a repository without a tag, inspects the highest version the
semver range matches (a pre-release only where the range names one: specs/stack.md), resolved
once to a digest and inspected as REPO:TAG@DIGEST ("resolved …" on stderr).`,
		Example: `  addonpack inspect localhost:5000/addons/hello:0.1.0
  addonpack inspect localhost:5000/addons/hello:0.1.0 --key release.pub
  addonpack inspect localhost:5000/addons/hello:0.1.0 --signatures -o json
  addonpack inspect ./hello-layout -o json
  addonpack inspect localhost:5000/addons/hello --version 0.x`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			arg, err := vr.pin(ctx, g, args[0])
			if err != nil {
				return err
			}
			c, err := g.consumerFor(ctx, nil, arg)
			if err != nil {
				return err
			}
			src, err := c.Source(ctx, arg)
			if err != nil {
				return err
			}
			loaded, err := consume.Load(ctx, src, consume.PullOptions{})
			if err != nil {
				return err
			}
			out := inspectOutput{Info: loaded.Info()}
			if loaded.Schema != nil {
				// Shown as stored: a package whose profiles do not load is
				// diagnosed, not refused (render refuses it).
				ps, perr := config.ProfilesOf(loaded.Addon, loaded.Schema, schema.DefaultLimits())
				if perr != nil {
					fmt.Fprintf(g.streams.Err, "Warning: profiles: %v\n", perr)
				}
				out.Profiles = ps
			}
			a, _ := consume.ParseArg(arg)
			if a.Kind != consume.KindReference {
				if len(keyRefs) > 0 || signatures {
					return usageError{fmt.Errorf("--key, --signatures: %s is a layout; signatures and attestations live in a registry", arg)}
				}
				return f.print(g.streams.Out, out, out.writeText)
			}
			// inspect verifies nothing unless asked and shows what is
			// there, so a reference that names another add-on is a warning,
			// not a refusal: it is how a substitution is diagnosed.
			if err := verify.Claim(a.Ref, name, nil).Check(a.Ref.String(), loaded.Addon, loaded.Manifest.Annotations); err != nil {
				fmt.Fprintf(g.streams.Err, "Warning: %v; consumers refuse it (exit 9)\n", err)
			}
			var p *verify.Policy
			if len(keyRefs) > 0 {
				if p, err = verify.PolicyFromKeys(ctx, keyRefs, verify.KeyOptions{Getenv: g.getenv}); err != nil {
					return err
				}
			}
			t := verify.Target{Client: c.Client, Ref: a.Ref}
			if !signatures {
				out.SBOM, err = sbom.Inspect(ctx, t, loaded.Descriptor, p)
			} else if out.Signatures, err = verify.Describe(ctx, t, loaded.Descriptor, verify.Limits{}); err == nil {
				// Describe lists what Inspect would list again, and more.
				out.SBOM, err = sbom.InspectListed(ctx, t, loaded.Descriptor, out.Signatures, p)
				if out.Signatures == nil {
					out.Signatures = []verify.Candidate{}
				}
			}
			if err != nil {
				return err
			}
			return f.print(g.streams.Out, out, func(w io.Writer) error {
				if err := out.writeText(w); err != nil {
					return err
				}
				writeSBOM(w, out.SBOM)
				if signatures {
					verify.WriteCandidates(w, out.Signatures)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the add-on the reference should hold, when its repository is named otherwise (only warns)")
	cmd.Flags().BoolVar(&signatures, "signatures", false, "list every signature and attestation found, with its signer as written (key hint, or keyless issuer, subject and extensions); not verified")
	cmd.Flags().StringArrayVar(&keyRefs, "key", nil, "verify the SBOM with this public key and show the image digests it records (repeatable)")
	vr.add(cmd)
	addFormat(cmd, &f, true)
	return cmd
}

// writeText writes the artifact's summary and its profiles.
func (o inspectOutput) writeText(w io.Writer) error {
	if err := o.Info.WriteText(w); err != nil {
		return err
	}
	if len(o.Profiles) == 0 {
		return nil
	}
	fmt.Fprintf(w, "Profiles:     %d (render selects one by --values and --kube-version)\n", len(o.Profiles))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, p := range o.Profiles {
		var sel []string
		for _, f := range p.Fields {
			sel = append(sel, f[0]+"="+f[1])
		}
		if !p.KubeVersion.IsZero() {
			sel = append(sel, "Kubernetes "+p.KubeVersion.String())
		}
		fmt.Fprintf(tw, "  %s\t%s\n", p.Name, strings.Join(sel, ", "))
	}
	return tw.Flush()
}

func writeSBOM(w io.Writer, a *sbom.Attachment) {
	switch {
	case a == nil:
	case !a.Attached:
		fmt.Fprintf(w, "SBOM:         none\n")
	case !a.Verified:
		fmt.Fprintf(w, "SBOM:         attached (%s), not verified: inspect --key PUB shows its images\n", a.PredicateType)
	default:
		fmt.Fprintf(w, "SBOM:         attached (%s), verified: %d images, %d files\n", a.PredicateType, len(a.Images), a.Files)
		for _, img := range a.Images {
			d := string(img.Digest)
			if img.Error != "" {
				d = img.Error
			}
			fmt.Fprintf(w, "  %-10s  %s  %s\n", img.Status, img.Reference, d)
		}
	}
}
