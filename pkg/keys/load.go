package keys

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sigstore/cosign/v2/pkg/cosign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/kms"
)

// EnvPrefix introduces a key held in an environment variable: "env://VAR".
const EnvPrefix = "env://"

// Signer is an unlocked private key. Load it once per process and share it:
// it is safe for concurrent use.
type Signer struct {
	signature.SignerVerifier
	ref string
	pub crypto.PublicKey
	id  string
	pem []byte
}

// Ref is the reference the key was loaded from (never key material).
func (s *Signer) Ref() string { return s.ref }

// ID is the key id of the public key (see ID).
func (s *Signer) ID() string { return s.id }

// Public returns the public key.
func (s *Signer) Public() crypto.PublicKey { return s.pub }

// PublicPEM returns the public key PEM-encoded.
func (s *Signer) PublicPEM() []byte { return append([]byte(nil), s.pem...) }

// NewSigner wraps an already unlocked sigstore SignerVerifier (tests, custom
// key stores).
func NewSigner(ref string, sv signature.SignerVerifier) (*Signer, error) {
	pub, err := sv.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", ref, ErrKey, err)
	}
	id, err := ID(pub)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	pem, err := cryptoutils.MarshalPublicKeyToPEM(pub)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", ref, ErrKey, err)
	}
	return &Signer{SignerVerifier: sv, ref: ref, pub: pub, id: id, pem: pem}, nil
}

// LoadSigner unlocks the private key named by ref: a KMS URI (its provider
// must be linked in), "env://VAR" holding a cosign-format PEM, or a cosign
// key file. pf is called at most once, and only for an encrypted key; getenv
// reads "env://" variables (nil means os.Getenv).
func LoadSigner(ctx context.Context, ref string, pf PassFunc, getenv func(string) string) (*Signer, error) {
	if isKMS(ref) {
		sv, err := kms.Get(ctx, ref, crypto.SHA256)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", ref, ErrKey, err)
		}
		return NewSigner(ref, sv)
	}
	raw, err := read(ref, getenv)
	if err != nil {
		return nil, err
	}
	var pass []byte
	if pf != nil {
		if pass, err = pf(false); err != nil {
			return nil, fmt.Errorf("%s: reading password: %w", ref, err)
		}
	}
	sv, err := cosign.LoadPrivateKey(raw, pass, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w (wrong password, or not a cosign private key)", ref, ErrKey, err)
	}
	return NewSigner(ref, sv)
}

// Verifier is a trusted public key.
type Verifier struct {
	signature.Verifier
	// Ref is where the key was loaded from.
	Ref string
	// ID is the key id (see ID).
	ID string
	// PEM is the public key, PEM-encoded.
	PEM []byte
}

// LoadVerifier loads the public key named by ref: a KMS URI, "env://VAR", or
// a PEM file (a cosign .pub file).
func LoadVerifier(ctx context.Context, ref string, getenv func(string) string) (*Verifier, error) {
	if isKMS(ref) {
		sv, err := kms.Get(ctx, ref, crypto.SHA256)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", ref, ErrKey, err)
		}
		pub, err := sv.PublicKey()
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", ref, ErrKey, err)
		}
		pem, err := cryptoutils.MarshalPublicKeyToPEM(pub)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", ref, ErrKey, err)
		}
		return ParseVerifier(ref, pem)
	}
	raw, err := read(ref, getenv)
	if err != nil {
		return nil, err
	}
	return ParseVerifier(ref, raw)
}

// ParseVerifier parses a PEM public key; ref names it in errors.
func ParseVerifier(ref string, pem []byte) (*Verifier, error) {
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pem)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: not a PEM public key: %w", ref, ErrKey, err)
	}
	v, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", ref, ErrKey, err)
	}
	id, err := ID(pub)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	canon, err := cryptoutils.MarshalPublicKeyToPEM(pub)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", ref, ErrKey, err)
	}
	return &Verifier{Verifier: v, Ref: ref, ID: id, PEM: canon}, nil
}

// isKMS reports whether ref uses one of sigstore's KMS schemes.
func isKMS(ref string) bool {
	for _, p := range []string{"awskms://", "gcpkms://", "azurekms://", "hashivault://"} {
		if strings.HasPrefix(ref, p) {
			return true
		}
	}
	return false
}

// read returns the key bytes of a file or "env://VAR" reference.
func read(ref string, getenv func(string) string) ([]byte, error) {
	if name, ok := strings.CutPrefix(ref, EnvPrefix); ok {
		if getenv == nil {
			getenv = os.Getenv
		}
		v := getenv(name)
		if v == "" {
			return nil, fmt.Errorf("%s: %w: environment variable %s is empty or unset", ref, ErrKey, name)
		}
		return []byte(v), nil
	}
	if ref == "" {
		return nil, fmt.Errorf("%w: empty key reference", ErrKey)
	}
	if strings.Contains(ref, "://") {
		return nil, fmt.Errorf("%s: %w: unsupported key reference scheme (use a file, env://VAR or a KMS URI)", ref, ErrKey)
	}
	b, err := os.ReadFile(ref)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("key %s: %w", ref, err)
		}
		return nil, fmt.Errorf("key %s: %w: %w", ref, ErrKey, err)
	}
	return b, nil
}
