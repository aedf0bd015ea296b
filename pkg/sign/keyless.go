package sign

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/cosign/v2/pkg/types"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Sigstore's public-good instances. DefaultFulcioURL and DefaultRekorURL
// are KeylessConfig's defaults; DefaultTSAURL is the CLI's default
// --timestamp-server-url (the library takes none unless told): Sigstore's
// public-good trusted root lists this timestamp authority, and a verifier
// that derives its checks from the root (as addonpack verify does) then
// requires an RFC 3161 timestamp besides the Rekor entry.
const (
	DefaultFulcioURL = "https://fulcio.sigstore.dev"
	DefaultRekorURL  = "https://rekor.sigstore.dev"
	DefaultTSAURL    = "https://timestamp.sigstore.dev/api/v1/timestamp"
)

// keylessTimeout bounds each request to Fulcio, Rekor or the TSA.
const keylessTimeout = 30 * time.Second

// certRenewBefore is how long before its end a cached certificate is
// replaced: Fulcio certificates live 10 minutes, and a bundle's log entry
// must fall inside the certificate's validity.
const certRenewBefore = 2 * time.Minute

// KeylessConfig says where keyless signing gets its certificate, log entry
// and timestamp, and with which identity.
type KeylessConfig struct {
	// IDToken is the OIDC identity token Fulcio exchanges for a certificate
	// (see IdentityToken).
	IDToken string
	// FulcioURL and RekorURL default to Sigstore's public-good instances
	// (without a SigningConfig).
	FulcioURL, RekorURL string
	// RekorVersion is the API version of RekorURL: RekorV1 (0 means 1) or
	// RekorV2, whose entries state no time, so that a TSA is then required.
	RekorVersion uint32
	// TSAURL, when set, is an RFC 3161 timestamp authority's full URL
	// (public good: DefaultTSAURL); the bundle then carries a signed
	// timestamp besides the log entry. Empty: none.
	TSAURL string
	// SigningConfig, when set, is a Sigstore signing_config.v0.2 JSON
	// (ParseSigningConfig) that chooses the Fulcio, the Rekor logs and the
	// TSAs this config's URLs leave empty (specs/signing.md): a URL set
	// here always wins over the signing config's choice.
	SigningConfig []byte
	// TrustedRoot, when set, is a trusted_root.json that every bundle is
	// verified against right after signing (identity not checked).
	TrustedRoot []byte
	// Timeout bounds each request; 0 means 30 s.
	Timeout time.Duration
}

// Keyless signs with an ephemeral key and a short-lived Fulcio certificate
// for it. One Keyless asks Fulcio once and reuses the certificate for every
// bundle it signs while the certificate has more than two minutes to run
// (push signs a signature and attestations); it is safe for concurrent use.
type Keyless struct {
	cfg     KeylessConfig
	svc     services
	keypair *sgsign.EphemeralKeypair
	trusted root.TrustedMaterial

	mu   sync.Mutex
	cert *x509.Certificate
}

// NewKeyless checks cfg and makes the ephemeral key.
func NewKeyless(cfg KeylessConfig) (*Keyless, error) {
	if cfg.IDToken == "" {
		return nil, fmt.Errorf("%w: keyless signing needs an identity token", ErrSign)
	}
	var sc *root.SigningConfig
	if len(cfg.SigningConfig) > 0 {
		var err error
		if sc, err = ParseSigningConfig(cfg.SigningConfig); err != nil {
			return nil, err
		}
	} else {
		if cfg.FulcioURL == "" {
			cfg.FulcioURL = DefaultFulcioURL
		}
		if cfg.RekorURL == "" {
			cfg.RekorURL = DefaultRekorURL
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = keylessTimeout
	}
	svc, err := cfg.resolve(sc, time.Now())
	if err != nil {
		return nil, err
	}
	if err := svc.check(); err != nil {
		return nil, err
	}
	k := &Keyless{cfg: cfg, svc: svc}
	if len(cfg.TrustedRoot) > 0 {
		tr, err := root.NewTrustedRootFromJSON(cfg.TrustedRoot)
		if err != nil {
			return nil, fmt.Errorf("%w: trusted root: %w", ErrSign, err)
		}
		k.trusted = tr
	}
	kp, err := sgsign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, fmt.Errorf("%w: ephemeral key: %w", ErrSign, err)
	}
	k.keypair = kp
	return k, nil
}

// Identity is who a keyless signature names: the certificate's subject
// (a URI or e-mail address) and the OIDC issuer that vouched for it.
type Identity struct {
	Subject string `json:"identity"`
	Issuer  string `json:"issuer"`
}

// GetCertificate implements sigstore-go's CertificateProvider over the
// cached certificate: Fulcio is asked only when there is none or it ends
// within certRenewBefore.
func (k *Keyless) GetCertificate(ctx context.Context, kp sgsign.Keypair, _ *sgsign.CertificateProviderOptions) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cert != nil && time.Until(k.cert.NotAfter) > certRenewBefore {
		return k.cert.Raw, nil
	}
	f := sgsign.NewFulcio(&sgsign.FulcioOptions{BaseURL: strings.TrimSuffix(k.svc.fulcio, "/"), Timeout: k.cfg.Timeout})
	der, err := f.GetCertificate(ctx, kp, &sgsign.CertificateProviderOptions{IDToken: k.cfg.IDToken})
	if err != nil {
		return nil, fmt.Errorf("Fulcio %s: %w", k.svc.fulcio, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("Fulcio %s: certificate: %w", k.svc.fulcio, err)
	}
	// Fulcio must certify the key that signed; a certificate for another
	// key would make a bundle nobody can verify.
	if err := cryptoutils.EqualKeys(cert.PublicKey, kp.GetPublicKey()); err != nil {
		return nil, fmt.Errorf("Fulcio %s: certificate is for another key: %w", k.svc.fulcio, err)
	}
	k.cert = cert
	return der, nil
}

// Certify gets the Fulcio certificate now (it is otherwise fetched with the
// first signature), so that a caller can fail before writing anything when
// Fulcio refuses the identity token.
func (k *Keyless) Certify(ctx context.Context) error {
	if _, err := k.GetCertificate(ctx, k.keypair, nil); err != nil {
		return fmt.Errorf("%w: keyless: %w", failureClass(err), err)
	}
	return nil
}

// failureClass is ErrSign, or errdef.ErrUnreachable when a service could
// not be reached at all (connection, DNS, TLS, timeout): exit code 5, as
// for an unreachable registry.
func failureClass(err error) error {
	var ue *url.Error
	var ne net.Error
	if errors.As(err, &ue) || errors.As(err, &ne) {
		return errdef.ErrUnreachable
	}
	return ErrSign
}

// Services returns the Fulcio, the Rekor logs and the timestamp
// authorities this signer uses, as chosen from its config.
func (k *Keyless) Services() (fulcio string, logs []Log, tsas []string) {
	return k.svc.fulcio, append([]Log(nil), k.svc.logs...), append([]string(nil), k.svc.tsas...)
}

// bundle signs a DSSE envelope of the in-toto statement stmt, gets it
// certified, logged (Rekor v1 or v2, by sigstore-go: a DSSE envelope goes
// to Rekor v2 as a hashedrekord v0.0.2 entry over its PAE) and timestamped
// (with a TSA; always with Rekor v2), and returns the Sigstore bundle v0.3
// JSON and the identity its certificate names.
func (k *Keyless) bundle(ctx context.Context, stmt []byte) ([]byte, *Identity, error) {
	opts := sgsign.BundleOptions{Context: ctx, CertificateProvider: k}
	for _, l := range k.svc.logs {
		opts.TransparencyLogs = append(opts.TransparencyLogs, sgsign.NewRekor(&sgsign.RekorOptions{
			BaseURL: strings.TrimSuffix(l.URL, "/"), Timeout: k.cfg.Timeout, Version: l.Version,
		}))
	}
	for _, u := range k.svc.tsas {
		opts.TimestampAuthorities = append(opts.TimestampAuthorities, sgsign.NewTimestampAuthority(&sgsign.TimestampAuthorityOptions{
			URL: u, Timeout: k.cfg.Timeout,
		}))
	}
	if k.trusted != nil {
		opts.TrustedRoot = k.trusted
	}
	pb, err := sgsign.Bundle(&sgsign.DSSEData{Data: stmt, PayloadType: types.IntotoPayloadType}, k.keypair, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: keyless (Fulcio %s, Rekor %s): %w", failureClass(err), k.svc.fulcio, k.svc.logURLs(), err)
	}
	raw, err := protojson.Marshal(pb)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: bundle: %w", ErrSign, err)
	}
	id, err := certIdentity(pb.GetVerificationMaterial().GetCertificate().GetRawBytes())
	if err != nil {
		return nil, nil, err
	}
	return raw, id, nil
}

// certIdentity reads the subject and issuer of a Fulcio certificate.
func certIdentity(der []byte) (*Identity, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("%w: certificate: %w", ErrSign, err)
	}
	sum, err := certificate.SummarizeCertificate(cert)
	if err != nil {
		return nil, fmt.Errorf("%w: certificate: %w", ErrSign, err)
	}
	if sum.SubjectAlternativeName == "" || sum.Issuer == "" {
		return nil, fmt.Errorf("%w: certificate names no identity (subject %q, issuer %q)", ErrSign, sum.SubjectAlternativeName, sum.Issuer)
	}
	return &Identity{Subject: sum.SubjectAlternativeName, Issuer: sum.Issuer}, nil
}

func signKeyless(ctx context.Context, t Target, subject ocispec.Descriptor, opts Options) (*Result, error) {
	res, err := keylessBundle(ctx, t, subject, nil, CosignSignPredicateType, opts)
	if err != nil {
		return nil, fmt.Errorf("sign %s keyless: %w", t.Ref.WithDigest(subject.Digest), err)
	}
	res.Kind = "signature"
	res.PredicateType = ""
	return res, nil
}

func attestKeyless(ctx context.Context, t Target, subject ocispec.Descriptor, stmt []byte, predicateType string, opts Options) (*Result, error) {
	res, err := keylessBundle(ctx, t, subject, stmt, predicateType, opts)
	if err != nil {
		return nil, fmt.Errorf("attest %s (%s) keyless: %w", t.Ref.WithDigest(subject.Digest), predicateType, err)
	}
	return res, nil
}

// keylessBundle signs stmt (nil: the cosign sign statement for subject)
// with opts.Keyless and stores the bundle as a referrer of subject.
func keylessBundle(ctx context.Context, t Target, subject ocispec.Descriptor, stmt []byte, predicateType string, opts Options) (*Result, error) {
	if stmt == nil {
		var err error
		if stmt, err = signStatement(t, subject, opts); err != nil {
			return nil, err
		}
	}
	b, id, err := opts.Keyless.bundle(ctx, stmt)
	if err != nil {
		return nil, err
	}
	loc, err := storeBundle(ctx, t, subject, b, predicateType)
	if err != nil {
		return nil, err
	}
	return &Result{Kind: "attestation", Format: FormatBundle, Subject: subject.Digest, Identity: id.Subject, Issuer: id.Issuer,
		PredicateType: predicateType, Location: loc}, nil
}
