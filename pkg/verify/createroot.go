package verify

import (
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/errdef"
)

// RootMaterial is a private Sigstore's public trust material, as PEM, from
// which CreateTrustedRoot assembles a trusted_root.json.
type RootMaterial struct {
	// FulcioChain is the Fulcio CA chain: intermediates, then the root
	// (a leaf, if present first, is ignored as the chain ends at the root).
	FulcioChain []byte
	FulcioURL   string
	// RekorKeys and CTLogKeys are PEM public keys (the first key of each
	// is used).
	RekorKeys []byte
	RekorURL  string
	CTLogKeys []byte
	CTLogURL  string
	// TSAChain is the timestamping authority's chain: its signing
	// certificate, intermediates, the root. Optional.
	TSAChain []byte
	TSAURL   string
	// Start is when the logs' keys begin to be trusted (default: the
	// Fulcio root's NotBefore); CAs and TSAs are trusted over their root
	// certificate's validity.
	Start time.Time
}

// CreateTrustedRoot assembles a Sigstore trusted_root.json from m and
// returns it with its digest ("sha256:<hex>", what a policy pins). The
// result is parsed back as verification will parse it.
func CreateTrustedRoot(m RootMaterial) ([]byte, string, error) {
	chain, err := certs("Fulcio chain", m.FulcioChain)
	if err != nil {
		return nil, "", err
	}
	ca := &root.FulcioCertificateAuthority{URI: m.FulcioURL}
	ca.Root, ca.Intermediates = chain[len(chain)-1], intermediates(chain)
	ca.ValidityPeriodStart, ca.ValidityPeriodEnd = ca.Root.NotBefore, ca.Root.NotAfter
	start := m.Start
	if start.IsZero() {
		start = ca.Root.NotBefore
	}
	rekor, err := logs("Rekor key", m.RekorKeys, m.RekorURL, start)
	if err != nil {
		return nil, "", err
	}
	ct, err := logs("CT log key", m.CTLogKeys, m.CTLogURL, start)
	if err != nil {
		return nil, "", err
	}
	var tsas []root.TimestampingAuthority
	if len(m.TSAChain) > 0 {
		tc, err := certs("TSA chain", m.TSAChain)
		if err != nil {
			return nil, "", err
		}
		if len(tc) < 2 {
			return nil, "", fmt.Errorf("%w: TSA chain: want the signing certificate and its root, got %d certificate(s)", ErrPolicy, len(tc))
		}
		r := tc[len(tc)-1]
		tsas = []root.TimestampingAuthority{&root.SigstoreTimestampingAuthority{Leaf: tc[0], Intermediates: tc[1 : len(tc)-1], Root: r,
			ValidityPeriodStart: r.NotBefore, ValidityPeriodEnd: r.NotAfter, URI: m.TSAURL}}
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, []root.CertificateAuthority{ca}, ct, tsas, rekor)
	if err != nil {
		return nil, "", fmt.Errorf("%w: trusted root: %w", ErrPolicy, err)
	}
	raw, err := tr.MarshalJSON()
	if err != nil {
		return nil, "", fmt.Errorf("%w: trusted root: %w", ErrPolicy, err)
	}
	parsed, err := ParseTrustedRoot("created", raw, "created trusted root", "")
	if err != nil {
		return nil, "", err
	}
	return raw, parsed.Digest, nil
}

func certs(what string, pemBytes []byte) ([]*x509.Certificate, error) {
	cs, err := cryptoutils.UnmarshalCertificatesFromPEMLimited(pemBytes, 10)
	if err != nil || len(cs) == 0 {
		return nil, fmt.Errorf("%w: %s: no PEM certificates (%v)", ErrPolicy, what, err)
	}
	return cs, nil
}

// intermediates drops the root (last) and a leaf (first, if it is not a CA).
func intermediates(chain []*x509.Certificate) []*x509.Certificate {
	mid := chain[:len(chain)-1]
	if len(mid) > 0 && !mid[0].IsCA {
		mid = mid[1:]
	}
	return mid
}

func logs(what string, pemBytes []byte, url string, start time.Time) (map[string]*root.TransparencyLog, error) {
	out := map[string]*root.TransparencyLog{}
	if len(pemBytes) == 0 {
		return out, nil
	}
	keys, err := cryptoutils.UnmarshalPEMToPublicKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrPolicy, what, err)
	}
	der, err := x509.MarshalPKIXPublicKey(keys)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrPolicy, what, err)
	}
	sum := sha256.Sum256(der)
	out[hex.EncodeToString(sum[:])] = &root.TransparencyLog{BaseURL: url, ID: sum[:], ValidityPeriodStart: start,
		HashFunc: crypto.SHA256, PublicKey: keys, SignatureHashFunc: crypto.SHA256}
	return out, nil
}

// RootFiles names the PEM files of a RootMaterial (empty: left out).
type RootFiles struct {
	FulcioChain, RekorKey, CTLogKey, TSAChain string
}

// CreateTrustedRootFile reads files into m, creates the trusted root and
// writes it to out (WriteTrustedRootFile), returning its digest.
func CreateTrustedRootFile(files RootFiles, m RootMaterial, out string, force bool) (string, error) {
	for _, f := range []struct {
		path string
		into *[]byte
	}{{files.FulcioChain, &m.FulcioChain}, {files.RekorKey, &m.RekorKeys}, {files.CTLogKey, &m.CTLogKeys}, {files.TSAChain, &m.TSAChain}} {
		if f.path == "" {
			continue
		}
		b, err := readPEMFile(f.path)
		if err != nil {
			return "", err
		}
		*f.into = b
	}
	raw, _, err := CreateTrustedRoot(m)
	if err != nil {
		return "", err
	}
	return WriteTrustedRootFile(raw, "created trusted root", out, force)
}

// readPEMFile reads a material file, bounded however large it says it is:
// a FIFO or a device reports no size, so a stat before reading bounds
// nothing.
func readPEMFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTrustedRootSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxTrustedRootSize {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrPolicy, MaxTrustedRootSize)
	}
	return b, nil
}

// WriteTrustedRootFile checks that raw is a trusted root keyless
// verification accepts (where names it in messages), then writes it to out
// atomically (atomicfile.Write), so that a failure leaves nothing behind;
// an existing out is refused unless force.
// It returns the digest a policy pins.
func WriteTrustedRootFile(raw []byte, where, out string, force bool) (string, error) {
	parsed, err := ParseTrustedRoot("written", raw, where, "")
	if err != nil {
		return "", err
	}
	if err := atomicfile.Write(out, raw, force); err != nil {
		if errors.Is(err, errdef.ErrExists) {
			return "", fmt.Errorf("%s: %w (use --force to replace it)", out, errdef.ErrExists)
		}
		return "", err
	}
	return parsed.Digest, nil
}
