package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/sign"
)

// predicateTypes are cosign's short names for --type.
var predicateTypes = map[string]string{
	"slsaprovenance":   "https://slsa.dev/provenance/v0.2",
	"slsaprovenance02": "https://slsa.dev/provenance/v0.2",
	"slsaprovenance1":  "https://slsa.dev/provenance/v1",
	"spdx":             "https://spdx.dev/Document",
	"spdxjson":         "https://spdx.dev/Document",
	"cyclonedx":        "https://cyclonedx.org/bom",
	"link":             "https://in-toto.io/Link/v1",
	"vuln":             "https://cosign.sigstore.dev/attestation/vuln/v1",
	"openvex":          "https://openvex.dev/ns",
	"custom":           "https://cosign.sigstore.dev/attestation/v1",
}

// maxPredicateSize bounds --predicate files.
const maxPredicateSize = 16 << 20

func newAttest(g *globals) *cobra.Command {
	var (
		sf        signFlags
		f         format
		predicate string
		typ       string
	)
	cmd := &cobra.Command{
		Use:   "attest REF (--key KEY | --keyless) --predicate FILE --type TYPE",
		Short: "Attach a signed in-toto attestation (an SBOM, a test report, …) to an artifact",
		Long: `attest resolves REF once, wraps the JSON predicate in FILE in an in-toto Statement v1 whose
subject is the manifest digest, signs it as a DSSE envelope with KEY and stores it the way
cosign v3's 'cosign attest' does, as a Sigstore bundle referrer (--signature-format classic:
cosign v2's sha256-<hex>.att tag; both: the two). TYPE is a predicate type URI or one of cosign's short names:
slsaprovenance1, slsaprovenance, spdx, spdxjson, cyclonedx, link, vuln, openvex, custom.
An earlier attestation of the same type by the same key is replaced.
With --keyless (see 'addonpack sign --help') the attestation is signed with a Fulcio
certificate for your OIDC identity, logged in Rekor and stored as a Sigstore bundle referrer.`,
		Example: `  COSIGN_PASSWORD=secret addonpack attest localhost:5000/addons/hello:0.1.0 --key release.key --predicate sbom.spdx.json --type spdxjson`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if predicate == "" || typ == "" {
				return usageError{fmt.Errorf("--predicate and --type are required")}
			}
			pt := typ
			if long, ok := predicateTypes[typ]; ok {
				pt = long
			}
			body, err := readPredicate(predicate)
			if err != nil {
				return err
			}
			st, err := g.signingTarget(ctx, args[0], &sf)
			if err != nil {
				return err
			}
			ref := st.target.Ref
			stmt, err := sign.Statement(ref.Repo(), st.desc.Digest, pt, body)
			if err != nil {
				return err
			}
			res, err := sign.Attest(ctx, st.target, st.desc, st.signer, stmt, st.opts)
			if err != nil {
				return err
			}
			return f.print(g.streams.Out, res, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Attested %s (%s) with %s at %s\n", ref.WithDigest(st.desc.Digest), res.PredicateType, res.SignedBy(), res.Location)
				return err
			})
		},
	}
	sf.add(cmd, "private key: a cosign key file, env://VAR or a KMS URI (required)")
	cmd.Flags().StringVar(&predicate, "predicate", "", "JSON file holding the predicate (required)")
	cmd.Flags().StringVar(&typ, "type", "", "predicate type: a URI or a cosign short name (required)")
	addFormat(cmd, &f, true)
	return cmd
}

// readPredicate reads a JSON predicate file and checks it is a JSON object.
func readPredicate(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--predicate: %w", err)
	}
	if fi.Size() > maxPredicateSize {
		return nil, usageError{fmt.Errorf("--predicate %s: larger than %d bytes", path, maxPredicateSize)}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--predicate: %w", err)
	}
	if !jsonObject(b) {
		return nil, usageError{fmt.Errorf("--predicate %s: not a JSON object", path)}
	}
	return b, nil
}

// jsonObject reports whether b is a single JSON object.
func jsonObject(b []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil
}
