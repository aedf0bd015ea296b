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
// key stores). sv must be safe for concurrent use: push signs a classic
// signature and attestation at once.
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
// reads "env://" variables (nil means os.Getenv). It is ReadSigner, then
// Unlock.
func LoadSigner(ctx context.Context, ref string, pf PassFunc, getenv func(string) string) (*Signer, error) {
	l, err := ReadSigner(ref, pf, getenv)
	if err != nil {
		return nil, err
	}
	return l.Unlock(ctx)
}

// Locked is a private key read and ready to be unlocked: what can fail at
// once (a missing file or variable, no password, a password prompt the
// user cancels) has, and what takes time (a cosign key file's scrypt, about
// 135 ms of one core; a KMS provider's client) is left to Unlock, which a
// caller may run while it does other work.
type Locked struct {
	ref       string
	raw, pass []byte
	kms       bool
}

// ReadSigner reads the private key named by ref (see LoadSigner) and, for a
// key file or variable, asks pf for its password; it does not decrypt.
func ReadSigner(ref string, pf PassFunc, getenv func(string) string) (*Locked, error) {
	if isKMS(ref) {
		return &Locked{ref: ref, kms: true}, nil
	}
	raw, err := read(ref, getenv)
	if err != nil {
		return nil, err
	}
	l := &Locked{ref: ref, raw: raw}
	if pf != nil {
		if l.pass, err = pf(false); err != nil {
			return nil, fmt.Errorf("%s: reading password: %w", ref, err)
		}
	}
	return l, nil
}

// Unlock decrypts the key (or reaches its KMS) and returns the Signer. A
// wrong password fails here, with ErrKey.
func (l *Locked) Unlock(ctx context.Context) (*Signer, error) {
	if l.kms {
		sv, err := kms.Get(ctx, l.ref, crypto.SHA256)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", l.ref, ErrKey, err)
		}
		return NewSigner(l.ref, sv)
	}
	sv, err := cosign.LoadPrivateKey(l.raw, l.pass, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w (wrong password, or not a cosign private key)", l.ref, ErrKey, err)
	}
	return NewSigner(l.ref, sv)
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
