package commands

import (
	"cmp"
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/pkg/vet"
)

func newVet(g *globals) *cobra.Command {
	var (
		sf                   signFlags
		f                    format
		o                    vet.Options
		policy, name, polURI string
	)
	cmd := &cobra.Command{
		Use:   "vet REF --policy UPSTREAM_POLICY (--key ORG_KEY | --keyless)",
		Short: "Verify an upstream add-on under its publisher's policy, then sign it and attest a SLSA verification summary",
		Long: `vet resolves REF to a digest and verifies it afresh under UPSTREAM_POLICY, as verify --policy
does. Only when that passes, it signs the digest with the organisation's key (or --keyless) and
attests a SLSA Verification Summary (https://slsa.dev/verification_summary/v1): the verifier
(--verifier-id), the time, the reference by digest, the upstream policy (--policy-uri, and its
digest), every signature and attestation that verified, PASSED and the SLSA build level derived
from what verified (1 with a verified provenance, else 0; --build-level 2 or 3 vouches for the
builders the upstream policy pins). Both are stored beside the publisher's signatures, in the
format of --signature-format; nothing of the publisher's is changed. A downstream policy then
trusts the organisation's key and requires the summary (requireVerificationSummary, specs/policy.md).
A failed verification writes nothing and exits 9.`,
		Example: `  COSIGN_PASSWORD=secret addonpack keygen --output-key-prefix org
  COSIGN_PASSWORD=secret addonpack vet localhost:5000/addons/hello:0.1.0 --policy policy.yaml --key org.key
  COSIGN_PASSWORD=secret addonpack vet localhost:5000/addons/hello:0.1.0 --policy policy.yaml --key org.key --signature-format classic --format json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			switch {
			case policy == "":
				return usageError{errors.New("--policy UPSTREAM_POLICY is required: what the add-on is vetted under")}
			case g.offline:
				return usageError{errors.New("--offline: vet verifies the signatures afresh and writes to the registry")}
			}
			var err error
			if o.Sign, err = sf.options(); err != nil {
				return err
			}
			c, ref, err := g.resolveTarget(ctx, args[0])
			if err != nil {
				return err
			}
			pol, err := verify.LoadPolicy(ctx, policy, g.getenv)
			if err != nil {
				return err
			}
			if o.Signer, err = g.signerFor(ctx, &sf, &o.Sign); err != nil {
				return err
			}
			o.Upstream = consume.Options{Client: c, Policy: pol, Name: name, Warnings: g.streams.Err}
			o.PolicyURI, o.Version = cmp.Or(polURI, filepath.Base(policy)), buildVersion()
			res, verr := vet.Vet(ctx, ref, o)
			if res == nil {
				return verr
			}
			w := g.streams.Out
			if verr != nil && f != formatJSON {
				w = g.streams.Err // the verdict that refused it
			}
			return errors.Join(f.print(w, res, res.WriteText), verr)
		},
	}
	sf.add(cmd, "the organisation's private key: a cosign key file, env://VAR or a KMS URI (or --keyless)")
	fl := cmd.Flags()
	fl.StringVar(&policy, "policy", "", "the upstream (publisher's) verification policy the add-on must pass (required; specs/policy.md)")
	fl.StringVar(&name, "name", "", "the add-on (metadata.name) the reference must hold, for a repository named otherwise")
	fl.StringVar(&o.VerifierID, "verifier-id", vet.DefaultVerifierID, "the summary's verifier.id, what downstream policies name in requireVerificationSummary")
	fl.StringVar(&polURI, "policy-uri", "", "the summary's policy.uri (default: the --policy file's base name)")
	fl.IntVar(&o.BuildLevel, "build-level", 0, "state SLSA_BUILD_LEVEL_2 or 3 for the builders the upstream policy pins (builderIds); default: derived from what verified")
	addFormat(cmd, &f, false)
	return cmd
}
