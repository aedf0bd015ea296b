package commands

import (
	"context"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/keys"
	_ "github.com/addonpack/addonpack/pkg/keys/kms" // awskms://, gcpkms://, azurekms://, hashivault:// keys
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

// signFlags are the flags of commands that sign: sign, attest, push.
type signFlags struct {
	key         string
	format      string
	annotations []string
	sbom        bool // push only: attach an SBOM attestation
	// sbomUnresolved: push --sbom-allow-unresolved
	sbomUnresolved bool
	keyless        keylessFlags
}

func (s *signFlags) add(cmd *cobra.Command, keyHelp string) {
	cmd.Flags().StringVar(&s.key, "key", "", keyHelp)
	cmd.Flags().StringVar(&s.format, "signature-format", string(sign.FormatBundle),
		`where signatures and attestations go: "bundle" (a Sigstore bundle v0.3 OCI referrer, as cosign v3 writes), "classic" (cosign v2's sha256-<hex>.sig/.att tags, for cosign <= 2.x without --new-bundle-format) or "both"`)
	s.keyless.add(cmd)
}

func (s *signFlags) addSBOM(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&s.sbom, "sbom", false, "with --key or --keyless, also attach a signed CycloneDX SBOM: the images of spec.images with their digests, and the package's files; an image that cannot be resolved fails the push before anything is written")
	cmd.Flags().BoolVar(&s.sbomUnresolved, "sbom-allow-unresolved", false, "with --sbom, record images that cannot be resolved as unresolved (and say so) instead of failing")
}

func (s *signFlags) addAnnotations(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&s.annotations, "annotation", "a", nil, "key=value signed into the signature payload (repeatable)")
}

// options parses the format and annotations.
func (s *signFlags) options() (sign.Options, error) {
	o, err := sign.ParseOptions(s.format, s.annotations)
	return o, usage(err)
}

// signer unlocks the private key ref names (--key): a file, env://VAR or a
// KMS URI.
func (g *globals) signer(ctx context.Context, ref string) (*keys.Signer, error) {
	if ref == "" {
		return nil, usageError{fmt.Errorf("--key is required")}
	}
	return keys.LoadSigner(ctx, ref, g.passFunc(ctx), g.getenv)
}

// resolveTarget parses REF and builds the registry client; nothing is
// requested yet.
func (g *globals) resolveTarget(ctx context.Context, arg string) (*registry.Client, registry.Reference, error) {
	ref, err := g.reference(arg)
	if err != nil {
		return nil, ref, err
	}
	c, err := g.client()
	return c, ref, err
}

func newSign(g *globals) *cobra.Command {
	var (
		sf signFlags
		f  format
	)
	cmd := &cobra.Command{
		Use:   "sign REF (--key KEY | --keyless)",
		Short: "Sign an artifact's manifest digest (cosign-compatible)",
		Long: `sign resolves REF once and signs the manifest digest with KEY: a cosign key file,
env://VAR (the PEM in a variable), or a KMS URI (awskms://, gcpkms://, azurekms://,
hashivault://). The password of an encrypted key comes from $COSIGN_PASSWORD or a prompt.

By default the signature is stored the way cosign v3's 'cosign sign' stores it: a Sigstore
bundle v0.3 as an OCI 1.1 referrer (through the referrers tag schema on registries without
the referrers API). --signature-format classic stores cosign v2's simple-signing payload in
the sha256-<hex>.sig tag instead, for verifiers that read only that; both stores the two.

--keyless signs without a key, as 'cosign sign' does in CI: an ephemeral key, a Fulcio
certificate binding it to your OIDC identity (--identity-token TOKEN or @FILE; in a GitHub
Actions job with permissions id-token: write, the job's own token), the signature logged in
Rekor, all in a Sigstore bundle referrer that 'cosign verify --new-bundle-format' and
'addonpack verify --trusted-root' read. --fulcio-url, --rekor-url and --timestamp-server-url
default to Sigstore's public-good services (--timestamp-server-url "" for no timestamp).`,
		Example: `  COSIGN_PASSWORD=secret addonpack sign localhost:5000/addons/hello:0.1.0 --key release.key
  COSIGN_PASSWORD=secret addonpack sign localhost:5000/addons/hello:0.1.0 --key release.key -a team=dns --signature-format both`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := g.signingTarget(ctx, args[0], &sf)
			if err != nil {
				return err
			}
			res, err := sign.Sign(ctx, st.target, st.desc, st.signer, st.opts)
			if err != nil {
				return err
			}
			return f.print(g.streams.Out, res, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Signed %s with %s (%s) at %s\n", st.target.Ref.WithDigest(st.desc.Digest), res.SignedBy(), res.Format, res.Location)
				return err
			})
		},
	}
	sf.add(cmd, "private key: a cosign key file, env://VAR or a KMS URI (required)")
	sf.addAnnotations(cmd)
	addFormat(cmd, &f, true)
	return cmd
}

// signingTarget is what sign and attest act on: REF resolved once, the key
// unlocked (or keyless signing prepared in opts).
type signingTarget struct {
	target sign.Target
	desc   ocispec.Descriptor
	signer *keys.Signer
	opts   sign.Options
}

// signingTarget parses the signing flags, resolves arg once and unlocks the
// key: the common start of sign and attest.
func (g *globals) signingTarget(ctx context.Context, arg string, sf *signFlags) (signingTarget, error) {
	opts, err := sf.options()
	if err != nil {
		return signingTarget{}, err
	}
	c, ref, err := g.resolveTarget(ctx, arg)
	if err != nil {
		return signingTarget{}, err
	}
	s, err := g.signerFor(ctx, sf, &opts)
	if err != nil {
		return signingTarget{}, err
	}
	desc, err := c.Resolve(ctx, ref)
	if err != nil {
		return signingTarget{}, c.ExplainNotFound(ctx, ref, err)
	}
	return signingTarget{target: sign.Target{Client: c, Ref: ref}, desc: desc, signer: s, opts: opts}, nil
}
