package commands

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/verify"
)

func newTrustedRoot(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trusted-root",
		Short: "Assemble a Sigstore trusted root for keyless verification",
	}
	cmd.AddCommand(newTrustedRootCreate(g))
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
Rekor key or a TSA chain (a verified signing time).`,
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
	fl.StringVar(&files.FulcioChain, "fulcio-chain", "", "PEM file: the Fulcio CA's intermediates and root (required)")
	fl.StringVar(&files.RekorKey, "rekor-key", "", "PEM file: the Rekor log's public key")
	fl.StringVar(&files.CTLogKey, "ctlog-key", "", "PEM file: the CT log's public key")
	fl.StringVar(&files.TSAChain, "tsa-chain", "", "PEM file: the timestamping authority's signing certificate, intermediates and root")
	fl.StringVar(&m.FulcioURL, "fulcio-url", "", "the Fulcio's URL, recorded in the root")
	fl.StringVar(&m.RekorURL, "rekor-url", "", "the Rekor log's URL, recorded in the root")
	fl.StringVar(&m.CTLogURL, "ctlog-url", "", "the CT log's URL, recorded in the root")
	fl.StringVar(&m.TSAURL, "tsa-url", "", "the TSA's URL, recorded in the root")
	fl.StringVarP(&output, "output", "o", "", "the trusted_root.json to write (required)")
	fl.BoolVar(&force, "force", false, "overwrite an existing output file")
	return cmd
}
