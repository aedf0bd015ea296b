package commands

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/sign"
)

// keylessFlags are the keyless signing flags of push, sign and attest,
// named as cosign names them.
type keylessFlags struct {
	on          bool
	token       string
	fulcio      string
	rekor       string
	tsa         string
	trustedRoot string
	signingCfg  string
	flags       *pflag.FlagSet
}

func (k *keylessFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	k.flags = fs
	fs.BoolVar(&k.on, "keyless", false,
		"sign without a key: an ephemeral key certified by Fulcio for your OIDC identity, the signature logged in Rekor, stored as a Sigstore bundle referrer (the identity token: --identity-token, else the GitHub Actions job's own, with permissions id-token: write)")
	fs.StringVar(&k.token, "identity-token", "", "OIDC identity token for --keyless, or @FILE holding it (implies --keyless)")
	fs.StringVar(&k.fulcio, "fulcio-url", sign.DefaultFulcioURL, "Fulcio that certifies the --keyless key")
	fs.StringVar(&k.rekor, "rekor-url", sign.DefaultRekorURL, "Rekor that logs --keyless signatures")
	fs.StringVar(&k.tsa, "timestamp-server-url", sign.DefaultTSAURL, `RFC 3161 timestamp authority that timestamps --keyless signatures besides Rekor ("" for none, e.g. for a private Sigstore without one)`)
	fs.StringVar(&k.trustedRoot, "trusted-root", "", "trusted_root.json every --keyless bundle is verified against right after signing (optional)")
	fs.StringVar(&k.signingCfg, "signing-config", "", "Sigstore signing_config.v0.2.json choosing the Fulcio, Rekor (v1 or v2) and TSA for --keyless; a URL flag given explicitly wins")
}

// enabled reports whether keyless signing was asked for.
func (k *keylessFlags) enabled() bool { return k.on || k.token != "" }

// check refuses flag combinations keyless signing cannot honour.
func (k *keylessFlags) check(key string) error {
	if !k.enabled() {
		for _, name := range []string{"fulcio-url", "rekor-url", "timestamp-server-url", "trusted-root", "signing-config"} {
			if k.flags != nil && k.flags.Changed(name) {
				return usageError{fmt.Errorf("--%s needs --keyless", name)}
			}
		}
		return nil
	}
	if key != "" {
		return usageError{errors.New("--key and --keyless are exclusive: a signature is made with a key or with a Fulcio certificate")}
	}
	if k.flags != nil && k.flags.Changed("signature-format") {
		if f, _ := k.flags.GetString("signature-format"); f != string(sign.FormatBundle) {
			return usageError{fmt.Errorf("--keyless stores Sigstore bundles: --signature-format %s is not supported with it", f)}
		}
	}
	return nil
}

// keyless gets the identity token and prepares keyless signing.
func (g *globals) keyless(ctx context.Context, k *keylessFlags) (*sign.Keyless, error) {
	tok, err := sign.IdentityToken(ctx, k.token, g.getenv)
	if err != nil {
		if k.token == "" && (g.getenv(sign.EnvActionsTokenURL) == "" || g.getenv(sign.EnvActionsTokenToken) == "") {
			return nil, usageError{err} // nothing to sign with: a command-line mistake
		}
		return nil, err
	}
	cfg := sign.KeylessConfig{IDToken: tok, FulcioURL: k.fulcio, RekorURL: k.rekor, TSAURL: k.tsa}
	if k.signingCfg != "" { // the signing config chooses what no flag names
		if cfg.SigningConfig, err = sign.ReadSigningConfig(k.signingCfg); err != nil {
			return nil, usageError{fmt.Errorf("--signing-config: %w", err)}
		}
		for name, v := range map[string]*string{"fulcio-url": &cfg.FulcioURL, "rekor-url": &cfg.RekorURL, "timestamp-server-url": &cfg.TSAURL} {
			if !k.flags.Changed(name) { // a URL flag given explicitly wins
				*v = ""
			}
		}
	}
	if k.trustedRoot != "" {
		if cfg.TrustedRoot, err = os.ReadFile(k.trustedRoot); err != nil {
			return nil, fmt.Errorf("--trusted-root: %w", err)
		}
	}
	kl, err := sign.NewKeyless(cfg)
	if err != nil {
		return nil, usageError{err}
	}
	return kl, nil
}

// signerFor is what sign and attest sign with: the unlocked --key, or (nil
// and opts.Keyless set) keyless signing.
func (g *globals) signerFor(ctx context.Context, sf *signFlags, opts *sign.Options) (*keys.Signer, error) {
	if err := sf.keyless.check(sf.key); err != nil {
		return nil, err
	}
	if !sf.keyless.enabled() {
		return g.signer(ctx, sf.key)
	}
	kl, err := g.keyless(ctx, &sf.keyless)
	if err != nil {
		return nil, err
	}
	opts.Keyless, opts.Format = kl, sign.FormatBundle
	return nil, nil
}

// signedBy says who made res: "key ID" or "IDENTITY (ISSUER)".
func signedBy(res sign.Result) string {
	if res.Identity != "" {
		return fmt.Sprintf("%s (%s)", res.Identity, res.Issuer)
	}
	return "key " + keys.ShortID(res.KeyID)
}

// signs reports whether push was asked to sign.
func (s *signFlags) signs() bool { return s.key != "" || s.keyless.enabled() }
