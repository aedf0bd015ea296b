package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/sign"
)

// keylessFlags are the keyless signing flags of push, sign and attest,
// named as cosign names them.
type keylessFlags struct{ sign.KeylessRequest }

func (k *keylessFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	k.Changed = fs.Changed
	fs.BoolVar(&k.On, "keyless", false,
		"sign without a key: an ephemeral key certified by Fulcio for your OIDC identity, the signature logged in Rekor, stored as a Sigstore bundle referrer (the identity token: --identity-token, else the GitHub Actions job's own, with permissions id-token: write)")
	fs.StringVar(&k.Token, "identity-token", "", "OIDC identity token for --keyless, or @FILE holding it (implies --keyless)")
	fs.StringVar(&k.FulcioURL, "fulcio-url", sign.DefaultFulcioURL, "Fulcio that certifies the --keyless key")
	fs.StringVar(&k.RekorURL, "rekor-url", sign.DefaultRekorURL, "Rekor that logs --keyless signatures")
	fs.StringVar(&k.TSAURL, "timestamp-server-url", sign.DefaultTSAURL, `RFC 3161 timestamp authority that timestamps --keyless signatures besides Rekor ("" for none, e.g. for a private Sigstore without one)`)
	fs.StringVar(&k.TrustedRoot, "trusted-root", "", "trusted_root.json every --keyless bundle is verified against right after signing (optional)")
	fs.StringVar(&k.SigningConfig, "signing-config", "", "Sigstore signing_config.v0.2.json choosing the Fulcio, Rekor (v1 or v2) and TSA for --keyless; a URL flag given explicitly wins")
}

// checkKeyless refuses keyless flags that do not go with the others.
func (s *signFlags) checkKeyless() error { return usage(s.keyless.Check(s.key, s.format)) }

// keyless gets the identity token and prepares keyless signing.
func (g *globals) keyless(ctx context.Context, k *keylessFlags) (*sign.Keyless, error) {
	kl, err := k.Prepare(ctx, g.getenv)
	return kl, usage(err)
}

// signerFor is what sign and attest sign with: the unlocked --key, or (nil
// and opts.Keyless set) keyless signing.
func (g *globals) signerFor(ctx context.Context, sf *signFlags, opts *sign.Options) (*keys.Signer, error) {
	if err := sf.checkKeyless(); err != nil {
		return nil, err
	}
	if !sf.keyless.Enabled() {
		return g.signer(ctx, sf.key)
	}
	kl, err := g.keyless(ctx, &sf.keyless)
	if err != nil {
		return nil, err
	}
	opts.Keyless, opts.Format = kl, sign.FormatBundle
	return nil, nil
}

// signs reports whether push was asked to sign.
func (s *signFlags) signs() bool { return s.key != "" || s.keyless.Enabled() }
