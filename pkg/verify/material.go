package verify

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"time"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrTrustMaterial: a file given to CreateTrustedRoot is not the trust
// material it is given as (specs/policy.md, "Trust material given to
// trusted-root create"): a leaf as a CA, a chain that does not chain, a
// private key, a weak key, an expired certificate.
var ErrTrustMaterial = errdef.New(errdef.ErrInvalid, "invalid trust material")

// maxChain bounds the certificates of a chain (and the PEM blocks of any
// material file): Sigstore's chains have two or three.
const maxChain = 10

var (
	pemBegin = []byte("-----BEGIN ")
	pemEnd   = []byte("-----END ")
)

// pemBlocks splits a material file into its PEM blocks. Anything else is
// refused rather than skipped, as pem.Decode would skip it: text around or
// between blocks (a second reader may see other material in it), a block
// that does not parse, PEM headers (encryption), private keys, and more
// than maxChain blocks.
func pemBlocks(label string, b []byte) ([]*pem.Block, error) {
	var blocks []*pem.Block
	rest := b
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if len(rest) == 0 {
			break
		}
		at := len(b) - len(rest)
		if !bytes.HasPrefix(rest, pemBegin) {
			return nil, fmt.Errorf("%w: %s: text outside PEM blocks at byte %d: want PEM blocks only", ErrTrustMaterial, label, at)
		}
		// One block is the text up to the end of its first END line, and
		// must decode whole: pem.Decode alone would step over a broken
		// block to the next good one.
		seg := rest
		if end := bytes.Index(rest, pemEnd); end >= 0 {
			if nl := bytes.IndexByte(rest[end:], '\n'); nl >= 0 {
				seg = rest[:end+nl+1]
			}
		}
		blk, tail := pem.Decode(seg)
		if blk == nil || bytes.Count(seg, pemBegin) != 1 || len(bytes.TrimSpace(tail)) != 0 {
			return nil, fmt.Errorf("%w: %s: malformed PEM block at byte %d", ErrTrustMaterial, label, at)
		}
		n := len(blocks) + 1
		switch {
		case strings.Contains(blk.Type, "PRIVATE KEY"):
			return nil, fmt.Errorf("%w: %s: PEM block %d is a private key (%s): trust material is public; keep the private key secret and give its public key or certificate", ErrTrustMaterial, label, n, blk.Type)
		case len(blk.Headers) > 0:
			return nil, fmt.Errorf("%w: %s: PEM block %d (%s) has headers: want plain PEM", ErrTrustMaterial, label, n, blk.Type)
		case n > maxChain:
			return nil, fmt.Errorf("%w: %s: more than %d PEM blocks", ErrTrustMaterial, label, maxChain)
		}
		blocks = append(blocks, blk)
		rest = rest[len(seg):]
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%w: %s: no PEM blocks", ErrTrustMaterial, label)
	}
	return blocks, nil
}

// pemCertificates parses a chain file: CERTIFICATE blocks only.
func pemCertificates(label string, b []byte) ([]*x509.Certificate, error) {
	blocks, err := pemBlocks(label, b)
	if err != nil {
		return nil, err
	}
	certs := make([]*x509.Certificate, len(blocks))
	for i, blk := range blocks {
		if blk.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("%w: %s: PEM block %d is a %s, not a CERTIFICATE", ErrTrustMaterial, label, i+1, blk.Type)
		}
		if certs[i], err = x509.ParseCertificate(blk.Bytes); err != nil {
			return nil, fmt.Errorf("%w: %s: certificate %d of %d: %w", ErrTrustMaterial, label, i+1, len(blocks), err)
		}
	}
	return certs, nil
}

// logKey parses a Rekor or CT log key file: exactly one PKIX PUBLIC KEY of
// a supported kind.
func logKey(label string, b []byte) (crypto.PublicKey, error) {
	blocks, err := pemBlocks(label, b)
	if err != nil {
		return nil, err
	}
	if len(blocks) != 1 {
		return nil, fmt.Errorf("%w: %s: %d PEM blocks: want exactly one PUBLIC KEY, the log's", ErrTrustMaterial, label, len(blocks))
	}
	switch blk := blocks[0]; blk.Type {
	case "PUBLIC KEY":
	case "CERTIFICATE":
		what := "a certificate"
		if c, err := x509.ParseCertificate(blk.Bytes); err == nil {
			what = fmt.Sprintf("a certificate (%s)", subject(c))
			if c.BasicConstraintsValid && c.IsCA {
				what = fmt.Sprintf("a CA certificate (%s)", subject(c))
			}
		}
		return nil, fmt.Errorf("%w: %s: %s, not a public key: want the log's PUBLIC KEY", ErrTrustMaterial, label, what)
	default:
		return nil, fmt.Errorf("%w: %s: a %s block: want a PUBLIC KEY (PKIX)", ErrTrustMaterial, label, blk.Type)
	}
	pub, err := x509.ParsePKIXPublicKey(blocks[0].Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: public key: %w", ErrTrustMaterial, label, err)
	}
	if err := supportedKey(pub); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrTrustMaterial, label, err)
	}
	return pub, nil
}

// supportedKey accepts the keys a Sigstore trusted root can state
// (sigstore-go's PublicKeyDetails): ECDSA P-256/384/521, RSA 2048/3072/4096,
// Ed25519.
func supportedKey(pub any) error {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256(), elliptic.P384(), elliptic.P521():
			return nil
		}
		return fmt.Errorf("ECDSA key on curve %s: want P-256, P-384 or P-521", k.Curve.Params().Name)
	case *rsa.PublicKey:
		switch k.N.BitLen() {
		case 2048, 3072, 4096:
			return nil
		}
		return fmt.Errorf("RSA key of %d bits: want 2048, 3072 or 4096", k.N.BitLen())
	case ed25519.PublicKey:
		return nil
	case nil:
		return fmt.Errorf("key of an unsupported algorithm: want ECDSA, RSA or Ed25519")
	}
	return fmt.Errorf("%T key: want ECDSA, RSA or Ed25519", pub)
}

// subject names a certificate in messages.
func subject(c *x509.Certificate) string {
	if s := c.Subject.String(); s != "" {
		return s
	}
	return "empty subject, serial " + c.SerialNumber.String()
}

// validAt refuses a certificate outside its validity at now.
func validAt(c *x509.Certificate, now time.Time) error {
	switch {
	case now.Before(c.NotBefore):
		return fmt.Errorf("not valid yet: valid from %s, now is %s", c.NotBefore.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	case now.After(c.NotAfter):
		return fmt.Errorf("expired at %s, now is %s", c.NotAfter.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}
