package sign

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/keys"
)

// KeylessRequest is keyless signing as a command line asks for it — the
// flags of push, sign and attest, named as cosign names them — for
// Prepare to turn into a Keyless.
type KeylessRequest struct {
	On    bool   // --keyless
	Token string // --identity-token: a token or @FILE; implies On
	// FulcioURL, RekorURL and TSAURL are the services ("" TSAURL: none).
	FulcioURL, RekorURL, TSAURL string
	TrustedRoot                 string // a trusted_root.json every bundle is checked against ("" : none)
	SigningConfig               string // a signing_config.v0.2.json choosing the services ("" : none)
	// Changed reports whether the flag of that name was given explicitly
	// (a URL flag given explicitly wins over the signing config); nil: none
	// was.
	Changed func(name string) bool
}

// Enabled reports whether keyless signing was asked for.
func (r KeylessRequest) Enabled() bool { return r.On || r.Token != "" }

func (r KeylessRequest) changed(name string) bool { return r.Changed != nil && r.Changed(name) }

// Check refuses what keyless signing cannot honour, as command-line
// mistakes (errdef.ErrUsage): a service flag without keyless signing, a key
// with it, or a signature format other than bundle given explicitly
// (format: the --signature-format value).
func (r KeylessRequest) Check(key, format string) error {
	if !r.Enabled() {
		for _, name := range []string{"fulcio-url", "rekor-url", "timestamp-server-url", "trusted-root", "signing-config"} {
			if r.changed(name) {
				return errdef.Usagef("--%s needs --keyless", name)
			}
		}
		return nil
	}
	if key != "" {
		return errdef.Usagef("--key and --keyless are exclusive: a signature is made with a key or with a Fulcio certificate")
	}
	if r.changed("signature-format") && format != string(FormatBundle) {
		return errdef.Usagef("--keyless stores Sigstore bundles: --signature-format %s is not supported with it", format)
	}
	return nil
}

// Prepare gets the identity token (IdentityToken) and prepares keyless
// signing. Failures that are the command line's — no token outside a
// GitHub Actions job that offers one, a signing config or services
// NewKeyless refuses — are in errdef.ErrUsage.
func (r KeylessRequest) Prepare(ctx context.Context, getenv func(string) string) (*Keyless, error) {
	tok, err := IdentityToken(ctx, r.Token, getenv)
	if err != nil {
		if r.Token == "" && (getenv(EnvActionsTokenURL) == "" || getenv(EnvActionsTokenToken) == "") {
			return nil, errdef.Usagef("%w", err) // nothing to sign with
		}
		return nil, err
	}
	cfg := KeylessConfig{IDToken: tok, FulcioURL: r.FulcioURL, RekorURL: r.RekorURL, TSAURL: r.TSAURL}
	if r.SigningConfig != "" { // the signing config chooses what no flag names
		if cfg.SigningConfig, err = ReadSigningConfig(r.SigningConfig); err != nil {
			return nil, errdef.Usagef("--signing-config: %w", err)
		}
		for name, v := range map[string]*string{"fulcio-url": &cfg.FulcioURL, "rekor-url": &cfg.RekorURL, "timestamp-server-url": &cfg.TSAURL} {
			if !r.changed(name) {
				*v = ""
			}
		}
	}
	if r.TrustedRoot != "" {
		if cfg.TrustedRoot, err = os.ReadFile(r.TrustedRoot); err != nil {
			return nil, fmt.Errorf("--trusted-root: %w", err)
		}
	}
	kl, err := NewKeyless(cfg)
	if err != nil {
		return nil, errdef.Usagef("%w", err)
	}
	return kl, nil
}

// ParseOptions reads the --signature-format and -a key=value flags of a
// signing command (errdef.ErrUsage when they do not parse).
func ParseOptions(format string, annotations []string) (Options, error) {
	f, err := ParseFormat(format)
	if err != nil {
		return Options{}, errdef.Usagef("%w", err)
	}
	o := Options{Format: f}
	for _, a := range annotations {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return Options{}, errdef.Usagef("-a %q: want key=value", a)
		}
		if o.Annotations == nil {
			o.Annotations = map[string]string{}
		}
		o.Annotations[k] = v
	}
	return o, nil
}

// SignedBy says who made r: "key ID" (the short id) or "IDENTITY (ISSUER)".
func (r Result) SignedBy() string {
	if r.Identity != "" {
		return fmt.Sprintf("%s (%s)", r.Identity, r.Issuer)
	}
	return "key " + keys.ShortID(r.KeyID)
}
