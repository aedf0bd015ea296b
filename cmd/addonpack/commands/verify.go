package commands

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/verify"
)

func newVerify(g *globals) *cobra.Command {
	var (
		vf      verifyFlags
		verbose bool
		f       format
	)
	cmd := &cobra.Command{
		Use:   "verify REF... (--key PUB ... | --policy FILE)",
		Short: "Verify an artifact's signatures and provenance",
		Long: `verify resolves REF once and checks the manifest digest: it finds signatures and attestations
in both storage schemes (Sigstore bundle referrers first, then, if those do not pass, cosign's
sha256-<hex>.sig/.att tags; -v, with one reference, reads both), checks each signature over the exact digest with the trusted keys, including the digest the
signed payload claims, and, when asked or required by the policy, the SLSA provenance
(subject, predicate type, builder id, source repository).

Trust comes from --key (public key files, env://VAR or KMS URIs; any one key suffices)
or from --policy FILE (specs/policy.md: keys with validity windows, thresholds, provenance
rules, per-registry scopes). At most --max-signatures candidates are examined and each blob
is capped at --max-blob-size. Exit code 9 means verification failed; 5 means the registry
could not be reached. -v lists every candidate and why it failed.

With several references, they are verified in one process with one registry client and
bounded concurrency, one line each. Digests that passed the same policy within the last
hour are answered from the verified-digest cache, for one reference or many (--no-cache,
or -v for one, to check the signatures again).`,
		Example: `  addonpack verify localhost:5000/addons/hello:0.1.0 --key release.pub --require-provenance
  addonpack verify localhost:5000/addons/hello:0.1.0 --policy policy.yaml --format json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("verify needs at least one reference")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			c, err := g.consumer(ctx, &vf)
			if err != nil {
				return err
			}
			o := c.Options
			if len(args) > 1 {
				return g.verifyMany(ctx, args, o, f)
			}
			ref, err := g.reference(args[0])
			if err != nil {
				return err
			}
			res, verr := consume.VerifyOne(ctx, ref, o, verbose) // -v: afresh, every candidate
			if res == nil {
				return verr
			}
			if f == formatJSON {
				// Always a list, one entry per reference, as for several
				// (specs/cli-output.md): scripts read .[0].verified.
				o := verify.OutcomeOf(ref.String(), res, verr)
				return errors.Join(f.print(g.streams.Out, []verify.Outcome{o}, nil), verr)
			}
			w := io.Writer(g.streams.Out)
			if verr != nil {
				w = g.streams.Err
			}
			if err := res.WriteText(w, verbose); err != nil {
				return err
			}
			return verr
		},
	}
	vf.add(cmd, false)
	fl := cmd.Flags()
	fl.BoolVarP(&verbose, "verbose", "v", false, "with one reference: verify afresh, looking in both signature schemes, and list every candidate and why it failed")
	addFormat(cmd, &f, true)
	return cmd
}
