package keys

import (
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/sigstore/cosign/v2/pkg/cosign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Errors returned by this package wrap one of these (test with errors.Is).
var (
	// ErrKey reports a key that cannot be read, decrypted or parsed.
	ErrKey = errdef.New(errdef.ErrInvalid, "invalid key")
	// ErrExists reports that keygen would overwrite a file.
	ErrExists = errdef.New(errdef.ErrExists, "key file exists")
)

// PassFunc returns the password of an encrypted private key. confirm asks
// for it twice (when creating a key). It is cosign's PassFunc.
type PassFunc = cosign.PassFunc

// StaticPass returns a PassFunc that always returns pw.
func StaticPass(pw []byte) PassFunc {
	return func(bool) ([]byte, error) { return pw, nil }
}

// Pair is a generated key pair in cosign's PEM encodings.
type Pair struct {
	// PrivatePEM is the encrypted private key ("ENCRYPTED SIGSTORE PRIVATE KEY").
	PrivatePEM []byte
	// PublicPEM is the PKIX public key ("PUBLIC KEY").
	PublicPEM []byte
	// ID is the key id of the public key (see ID).
	ID string
}

// GenerateKeyPair creates an ECDSA P-256 key pair as `cosign
// generate-key-pair` does, encrypting the private key with the password pf
// returns.
func GenerateKeyPair(pf PassFunc) (*Pair, error) {
	kb, err := cosign.GenerateKeyPair(pf)
	if err != nil {
		return nil, fmt.Errorf("generate key pair: %w", err)
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(kb.PublicBytes)
	if err != nil {
		return nil, fmt.Errorf("generate key pair: %w", err)
	}
	id, err := ID(pub)
	if err != nil {
		return nil, err
	}
	return &Pair{PrivatePEM: kb.PrivateBytes, PublicPEM: kb.PublicBytes, ID: id}, nil
}

// WriteKeyPair generates a key pair and writes prefix+".key" (mode 0600) and
// prefix+".pub". It refuses to overwrite either file (ErrExists).
func WriteKeyPair(prefix string, pf PassFunc) (*Pair, error) {
	keyPath, pubPath := prefix+".key", prefix+".pub"
	for _, p := range []string{keyPath, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s: %w: remove it or choose another --output-key-prefix", p, ErrExists)
		}
	}
	pair, err := GenerateKeyPair(pf)
	if err != nil {
		return nil, err
	}
	if err := writeNew(keyPath, pair.PrivatePEM, 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(pubPath, pair.PublicPEM, 0o644); err != nil {
		_ = os.Remove(keyPath)
		return nil, err
	}
	return pair, nil
}

// writeNew creates path exclusively and writes data.
func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s: %w", path, ErrExists)
		}
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// ID returns the key id of pub: "sha256:" + hex SHA-256 of its PKIX DER
// encoding. The same key always has the same id, whatever file it came from.
func ID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("%w: public key: %w", ErrKey, err)
	}
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// ShortID abbreviates a key id for human output.
func ShortID(id string) string {
	if len(id) > len("sha256:")+12 {
		return id[:len("sha256:")+12]
	}
	return id
}
