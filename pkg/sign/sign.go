package sign

import (
	"bytes"
	"context"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/cosign/v2/pkg/types"
	"github.com/sigstore/sigstore/pkg/signature/dsse"
	sigopts "github.com/sigstore/sigstore/pkg/signature/options"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
)

// Format is where and how signatures and attestations are stored.
type Format string

const (
	// FormatClassic is cosign's tag scheme (sha256-<hex>.sig / .att).
	FormatClassic Format = "classic"
	// FormatBundle is a Sigstore bundle v0.3 stored as an OCI referrer, as
	// cosign v3 stores it by default.
	FormatBundle Format = "bundle"
	// FormatBoth stores the classic tag and the bundle referrer, for
	// consumers on both sides of the change (cosign v2 without
	// --new-bundle-format reads only the first, cosign v3 prefers the second).
	FormatBoth Format = "both"
)

// ParseFormat parses a --signature-format value; "" is FormatClassic, the
// library's zero value since before bundles (the CLI's default is
// FormatBundle: it passes its flag's value).
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", FormatClassic:
		return FormatClassic, nil
	case FormatBundle, FormatBoth:
		return Format(s), nil
	}
	return "", fmt.Errorf("%w: signature format %q: want %q, %q or %q", ErrSign, s, FormatBundle, FormatClassic, FormatBoth)
}

// ErrSign reports a signature or attestation that could not be made.
var ErrSign = errdef.New(errdef.ErrInvalid, "signing failed")

// Target is the repository an artifact lives in and the client that reaches
// it. Ref's tag and digest are not used: the subject is always passed by
// digest.
type Target = registry.Target

// Options tune Sign and Attest.
type Options struct {
	// Format selects the storage scheme; "" is FormatClassic. With
	// FormatBoth the classic signature is stored first, then the bundle.
	Format Format
	// Annotations are signed into the signature payload ("optional" of the
	// simple-signing payload; the subject's annotations in a bundle
	// signature's statement, where cosign v3 puts and checks them).
	Annotations map[string]string
	// Keyless, when set, signs with its ephemeral key and Fulcio
	// certificate instead of a key (the signer argument must be nil); the
	// result is always a bundle (Format "" or FormatBundle).
	Keyless *Keyless
}

// Result says what was stored.
type Result struct {
	Kind    string        `json:"kind"` // "signature" or "attestation"
	Format  Format        `json:"format"`
	Subject digest.Digest `json:"subject"`
	KeyID   string        `json:"keyId,omitempty"`
	// Identity and Issuer name a keyless signature's certificate identity
	// (KeyID is then empty).
	Identity      string `json:"identity,omitempty"`
	Issuer        string `json:"issuer,omitempty"`
	PredicateType string `json:"predicateType,omitempty"`
	// Location is the tag ("repo:sha256-<hex>.sig") or the referrer
	// ("repo@sha256:…") holding it; with FormatBoth, the referrer.
	Location string `json:"location"`
	// ClassicLocation is the classic tag of a FormatBoth signature.
	ClassicLocation string `json:"classicLocation,omitempty"`
	// Unchanged is true when an identical signature was already there.
	Unchanged bool `json:"unchanged,omitempty"`
}

// Sign signs subject (a manifest in t's repository) with s.
func Sign(ctx context.Context, t Target, subject ocispec.Descriptor, s *keys.Signer, opts Options) (*Result, error) {
	if err := check(t, subject, s, opts); err != nil {
		return nil, err
	}
	if opts.Keyless != nil {
		return signKeyless(ctx, t, subject, opts)
	}
	var (
		res *Result
		err error
	)
	switch opts.Format {
	case "", FormatClassic:
		res, err = signClassic(ctx, t, subject, s, opts)
	case FormatBundle:
		res, err = signBundle(ctx, t, subject, s, opts)
	case FormatBoth:
		res, err = both(func() (*Result, error) { return signClassic(ctx, t, subject, s, opts) },
			func() (*Result, error) { return signBundle(ctx, t, subject, s, opts) })
	default:
		_, err = ParseFormat(string(opts.Format))
	}
	if err != nil {
		return nil, fmt.Errorf("sign %s with key %s: %w", t.Ref.WithDigest(subject.Digest), keys.ShortID(s.ID()), err)
	}
	return res, nil
}

// Attest signs the in-toto statement (JSON) as a DSSE envelope and stores it
// for subject. The statement must name subject's digest.
func Attest(ctx context.Context, t Target, subject ocispec.Descriptor, s *keys.Signer, statement []byte, opts Options) (*Result, error) {
	if err := check(t, subject, s, opts); err != nil {
		return nil, err
	}
	st, err := parseStatement(statement)
	if err == nil {
		err = st.names(subject.Digest)
	}
	if err != nil {
		return nil, fmt.Errorf("attest %s: %w: %w", t.Ref.WithDigest(subject.Digest), ErrSign, err)
	}
	if opts.Keyless != nil {
		return attestKeyless(ctx, t, subject, statement, st.PredicateType, opts)
	}
	var res *Result
	switch opts.Format {
	case "", FormatClassic:
		res, err = attestClassic(ctx, t, subject, s, statement, st.PredicateType)
	case FormatBundle:
		res, err = attestBundle(ctx, t, subject, s, statement, st.PredicateType)
	case FormatBoth:
		res, err = both(func() (*Result, error) { return attestClassic(ctx, t, subject, s, statement, st.PredicateType) },
			func() (*Result, error) { return attestBundle(ctx, t, subject, s, statement, st.PredicateType) })
	default:
		_, err = ParseFormat(string(opts.Format))
	}
	if err != nil {
		return nil, fmt.Errorf("attest %s (%s) with key %s: %w", t.Ref.WithDigest(subject.Digest), st.PredicateType, keys.ShortID(s.ID()), err)
	}
	return res, nil
}

// both stores the classic form, then the bundle: a failure of either fails
// the whole (what was stored stays, as with any partial push).
func both(classic, bundle func() (*Result, error)) (*Result, error) {
	c, err := classic()
	if err != nil {
		return nil, err
	}
	b, err := bundle()
	if err != nil {
		return nil, err
	}
	b.Format, b.ClassicLocation = FormatBoth, c.Location
	b.Unchanged = b.Unchanged && c.Unchanged
	return b, nil
}

func check(t Target, subject ocispec.Descriptor, s *keys.Signer, opts Options) error {
	switch {
	case t.Client == nil:
		return fmt.Errorf("%w: no registry client", ErrSign)
	case opts.Keyless != nil && s != nil:
		return fmt.Errorf("%w: a key and keyless signing at once", ErrSign)
	case opts.Keyless != nil && opts.Format != "" && opts.Format != FormatBundle:
		return fmt.Errorf("%w: keyless signatures are stored as bundles, not in the %q format", ErrSign, opts.Format)
	case opts.Keyless == nil && s == nil:
		return fmt.Errorf("%w: no signing key", ErrSign)
	}
	if err := subject.Digest.Validate(); err != nil {
		return fmt.Errorf("%w: subject digest %q: %w", ErrSign, subject.Digest, err)
	}
	return nil
}

// envelope signs payload as a DSSE envelope of the in-toto payload type.
func envelope(ctx context.Context, s *keys.Signer, payload []byte) ([]byte, error) {
	w := dsse.WrapSigner(s, types.IntotoPayloadType)
	env, err := w.SignMessage(bytes.NewReader(payload), sigopts.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("%w: DSSE: %w", ErrSign, err)
	}
	return env, nil
}
