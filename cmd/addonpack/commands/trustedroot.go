package commands

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/tufroot"
	"github.com/addonpack/addonpack/pkg/verify"
)

func newTrustedRoot(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trusted-root",
		Short: "Fetch or assemble a Sigstore trusted root for keyless verification",
	}
	cmd.AddCommand(newTrustedRootCreate(g), newTrustedRootFetch(g), newTrustedRootInspect(g))
	return cmd
}

func newTrustedRootCreate(g *globals) *cobra.Command {
	var (
		files  verify.RootFiles
		m      verify.RootMaterial
		output string
		force  bool
	)
	cmd := &cobra.Command{
		Use:   "create --fulcio-chain PEM [--rekor-key PEM] [--ctlog-key PEM] [--tsa-chain PEM] -o FILE",
		Short: "Write a trusted_root.json for a private Sigstore and print its digest",
		Long: `trusted-root create assembles a Sigstore trusted_root.json from a private Sigstore's public
material: its Fulcio CA chain (intermediates, then the root), its Rekor log public key, its CT
log public key and its timestamping authority's chain (signing certificate, intermediates,
root). It writes FILE and prints the file's digest, the value a policy pins under
trustedRoots (specs/policy.md). Nothing is fetched.

What the root holds decides what keyless verification requires: with a Rekor key, a log entry;
with a TSA chain, an RFC 3161 timestamp; with a CT log key, an embedded SCT. A root needs a
Rekor key or a TSA chain (a verified signing time).

Each file must be what its flag says (specs/policy.md): CA certificates that chain to a
self-signed root, a TSA signing certificate with RFC 3161's critical time-stamping usage, one
public key of a kind a root can state, every certificate valid now, nothing else in the file.
Anything else exits 3, naming the flag, the file, the certificate and the rule.`,
		Example: `  addonpack trusted-root create --fulcio-chain fulcio-chain.pem --rekor-key rekor.pub --ctlog-key ctlog.pub --tsa-chain tsa-chain.pem -o trusted_root.json`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if files.FulcioChain == "" || output == "" {
				return usageError{errors.New("trusted-root create needs --fulcio-chain and -o")}
			}
			digest, err := verify.CreateTrustedRootFile(files, m, output, force)
			if err != nil {
				return err
			}
			fmt.Fprintln(g.streams.Out, digest)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&files.FulcioChain, "fulcio-chain", "", "PEM file: the Fulcio CA's intermediates, then its root: CA certificates only (required)")
	fl.StringVar(&files.RekorKey, "rekor-key", "", "PEM file: the Rekor log's public key (one PUBLIC KEY)")
	fl.StringVar(&files.CTLogKey, "ctlog-key", "", "PEM file: the CT log's public key (one PUBLIC KEY)")
	fl.StringVar(&files.TSAChain, "tsa-chain", "", "PEM file: the timestamping authority's signing certificate, intermediates and root")
	fl.StringVar(&m.FulcioURL, "fulcio-url", "", "the Fulcio's URL, recorded in the root")
	fl.StringVar(&m.RekorURL, "rekor-url", "", "the Rekor log's URL, recorded in the root")
	fl.StringVar(&m.CTLogURL, "ctlog-url", "", "the CT log's URL, recorded in the root")
	fl.StringVar(&m.TSAURL, "tsa-url", "", "the TSA's URL, recorded in the root")
	fl.StringVarP(&output, "output", "o", "", "the trusted_root.json to write (required)")
	fl.BoolVar(&force, "force", false, "overwrite an existing output file")
	return cmd
}

func newTrustedRootFetch(g *globals) *cobra.Command {
	var (
		o                           tufroot.Options
		output, tufRoot, signingOut string
		force                       bool
	)
	cmd := &cobra.Command{
		Use:   "fetch -o FILE [--tuf-url URL --tuf-root FILE] [--signing-config-out FILE]",
		Short: "Fetch Sigstore's trusted_root.json through TUF and print its digest",
		Long: `trusted-root fetch downloads a Sigstore trusted_root.json through TUF and writes it to FILE,
then prints the file's digest, the value a policy pins under trustedRoots (specs/policy.md).
This is the one online step of keyless trust, and it is explicit: verification never fetches.

By default it asks Sigstore's public-good TUF mirror (` + tufroot.DefaultURL + `),
starting from the TUF root embedded in this binary (sigstore-go's): addonpack trusted-root
fetch -o trusted_root.json. For another TUF repository (a private Sigstore's, a mirror),
give its URL and the initial root.json you trust for it. The TUF client checks every
metadata file's signatures, version and expiry and the target's length and hashes; the
fetched root must be one keyless verification accepts. Nothing is cached on disk; each
request gives up after --read-timeout (exit 5). --ca-file replaces the system CAs for the
repository's TLS certificate, as it does for registries.

Tested here only against a TUF repository on loopback: this build's tests do not reach
the public-good mirror.`,
		Example: `  addonpack trusted-root fetch --tuf-url http://localhost:8088 --tuf-root tuf-root.json -o trusted_root.json`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == "" {
				return usageError{errors.New("trusted-root fetch needs -o FILE")}
			}
			if err := usage(o.UseInitialRoot(tufRoot)); err != nil {
				return err
			}
			if g.readTimeout < 0 {
				return usageError{fmt.Errorf("--read-timeout %s: want a positive duration", g.readTimeout)}
			}
			o.Timeout, o.UserAgent = g.readTimeout, "addonpack/"+buildVersion()
			pool, err := g.rootCAs()
			if err != nil {
				return err
			}
			o.RootCAs = pool
			digest, err := tufroot.FetchFiles(cmd.Context(), o, output, signingOut, force)
			if err != nil {
				return err
			}
			fmt.Fprintln(g.streams.Out, digest)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.URL, "tuf-url", tufroot.DefaultURL, "the TUF repository to fetch from (https, or http on loopback)")
	fl.StringVar(&tufRoot, "tuf-root", "", "the TUF root.json to trust first (default: the public-good root built in; required with another --tuf-url)")
	fl.StringVarP(&output, "output", "o", "", "the trusted_root.json to write (required)")
	fl.StringVar(&signingOut, "signing-config-out", "", "also fetch the TUF target "+tufroot.SigningConfigTarget+" (for push/sign/attest --signing-config) and write it here")
	fl.BoolVar(&force, "force", false, "overwrite an existing output file")
	return cmd
}

func newTrustedRootInspect(g *globals) *cobra.Command {
	var f format
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "List a trusted root's CAs, logs and TSAs with their validity windows",
		Long: `trusted-root inspect reads a Sigstore trusted_root.json as keyless verification reads it and
lists its certificate authorities (subject, chain, validity), Rekor logs (base URL, log id,
key type, validity, Rekor API v1 or v2 where the root says it), CT logs and timestamping
authorities, with the validity window the root states and when each part ends. It warns on
stderr, as verify does, about parts that stop being valid within 30 days or have stopped with
nothing of their kind valid now. Nothing is fetched; the format is in specs/cli-output.md.`,
		Example: `  addonpack trusted-root inspect sigstore-root.json
  addonpack trusted-root inspect sigstore-root.json --format json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := verify.InspectTrustedRoot(args[0], time.Now())
			if err != nil {
				return err
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(g.streams.Err, "Warning: %s\n", w)
			}
			return f.print(g.streams.Out, rep, rep.WriteText)
		},
	}
	addFormat(cmd, &f, false)
	return cmd
}
