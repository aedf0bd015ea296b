package consume

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/sbom"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Inspection is what inspect shows: the artifact's summary and, from a
// registry, its SBOM and (on request) every signature found.
type Inspection struct {
	artifact.Info
	// Profiles are the variants the add-on selects inside itself
	// (addonpack.dev/v1alpha2: enum values and Kubernetes versions).
	Profiles []config.Profile `json:"profiles,omitempty"`
	SBOM     *sbom.Attachment `json:"sbom,omitempty"`
	// Signatures lists every signature and attestation found and who
	// each claims to be signed by (not verified).
	Signatures []verify.Candidate `json:"signatures,omitempty"`
}

// InspectOptions choose what Inspect adds to the summary.
type InspectOptions struct {
	// SBOMPolicy, when set, verifies the attached SBOM under it (failing
	// when it does not verify) so its images can be shown.
	SBOMPolicy *verify.Policy
	// Signatures lists every signature and attestation, unverified.
	Signatures bool
}

// Inspect reads arg's manifest and config blob — unverified, to show what
// is there; the content layer is not downloaded — and, for a registry
// reference, whether an SBOM is attached. A reference that names another
// add-on than the one it holds is a warning, not a refusal: it is how a
// substitution is diagnosed.
func (c *Consumer) Inspect(ctx context.Context, arg string, o InspectOptions) (*Inspection, error) {
	a, err := ParseArg(arg)
	if err != nil {
		return nil, err
	}
	src, err := c.source(ctx, a) // arg parsed once
	if err != nil {
		return nil, err
	}
	loaded, err := Load(ctx, src, PullOptions{})
	if err != nil {
		return nil, err
	}
	out := &Inspection{Info: loaded.Info()}
	if loaded.Schema != nil {
		// Shown as stored: a package whose profiles do not load is
		// diagnosed, not refused (render refuses it).
		ps, perr := config.ProfilesOf(ctx, loaded.Addon, loaded.Schema, schema.DefaultLimits())
		if perr != nil {
			c.warnf("profiles: %v", perr)
		}
		out.Profiles = ps
	}
	if a.Kind != KindReference {
		if o.SBOMPolicy != nil || o.Signatures {
			return nil, fmt.Errorf("--key, --signatures: %s is a layout; signatures and attestations live in a registry: %w", arg, ErrUnverifiable)
		}
		return out, nil
	}
	if err := verify.Claim(a.Ref, c.Name, nil).Check(a.Ref.String(), loaded.Addon, loaded.Manifest.Annotations); err != nil {
		c.warnf("%v; consumers refuse it (exit 9)", err)
	}
	t := verify.Target{Client: c.Client, Ref: a.Ref}
	if !o.Signatures {
		out.SBOM, err = sbom.Inspect(ctx, t, loaded.Descriptor, o.SBOMPolicy)
	} else if out.Signatures, err = verify.Describe(ctx, t, loaded.Descriptor, verify.Limits{}); err == nil {
		// Describe lists what Inspect would list again, and more.
		out.SBOM, err = sbom.InspectListed(ctx, t, loaded.Descriptor, out.Signatures, o.SBOMPolicy)
		if out.Signatures == nil {
			out.Signatures = []verify.Candidate{}
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WriteText writes the summary, its profiles, the SBOM and the signatures.
func (o *Inspection) WriteText(w io.Writer) error {
	if err := o.Info.WriteText(w); err != nil {
		return err
	}
	if len(o.Profiles) > 0 {
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
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	writeSBOM(w, o.SBOM)
	if o.Signatures != nil {
		verify.WriteCandidates(w, o.Signatures)
	}
	return nil
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
