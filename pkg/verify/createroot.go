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

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/errdef"
)

// RootMaterial is a private Sigstore's public trust material, as PEM, from
// which CreateTrustedRoot assembles a trusted_root.json. Each part is
// checked for being what it is given as (specs/policy.md, "Trust material
// given to trusted-root create"); anything else is ErrTrustMaterial.
type RootMaterial struct {
	// FulcioChain is the Fulcio CA chain: intermediates, then the root,
	// CA certificates only.
	FulcioChain []byte
	FulcioURL   string
	// RekorKeys and CTLogKeys each hold one PEM public key (PKIX).
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
	// Now is when every certificate must be valid (default: the current
	// time).
	Now time.Time
}

// materialLabels name the parts of a RootMaterial in messages: what they
// are, or the flag and file they were read from.
type materialLabels struct{ fulcio, rekor, ctlog, tsa string }

var bytesLabels = materialLabels{"Fulcio chain", "Rekor key", "CT log key", "TSA chain"}

// CreateTrustedRoot assembles a Sigstore trusted_root.json from m and
// returns it with its digest ("sha256:<hex>", what a policy pins). The
// result is parsed back as verification will parse it.
func CreateTrustedRoot(m RootMaterial) ([]byte, string, error) {
	return createTrustedRoot(m, bytesLabels)
}

func createTrustedRoot(m RootMaterial, l materialLabels) ([]byte, string, error) {
	now := m.Now
	if now.IsZero() {
		now = time.Now()
	}
	chain, err := pemCertificates(l.fulcio, m.FulcioChain)
	if err == nil {
		err = checkChain(l.fulcio, chain, fulcioRole, now)
	}
	if err != nil {
		return nil, "", err
	}
	ca := &root.FulcioCertificateAuthority{URI: m.FulcioURL}
	ca.Root, ca.Intermediates = chain[len(chain)-1], chain[:len(chain)-1]
	ca.ValidityPeriodStart, ca.ValidityPeriodEnd = ca.Root.NotBefore, ca.Root.NotAfter
	start := m.Start
	if start.IsZero() {
		start = ca.Root.NotBefore
	}
	rekor, err := logs(l.rekor, m.RekorKeys, m.RekorURL, start)
	if err != nil {
		return nil, "", err
	}
	ct, err := logs(l.ctlog, m.CTLogKeys, m.CTLogURL, start)
	if err != nil {
		return nil, "", err
	}
	var tsas []root.TimestampingAuthority
	if len(m.TSAChain) > 0 {
		tc, err := pemCertificates(l.tsa, m.TSAChain)
		if err != nil {
			return nil, "", err
		}
		if len(tc) < 2 {
			return nil, "", fmt.Errorf("%w: %s: want the signing certificate and its root, got %d certificate(s)", ErrTrustMaterial, l.tsa, len(tc))
		}
		if err := checkChain(l.tsa, tc, tsaRole, now); err != nil {
			return nil, "", err
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

func logs(label string, pemBytes []byte, url string, start time.Time) (map[string]*root.TransparencyLog, error) {
	out := map[string]*root.TransparencyLog{}
	if len(pemBytes) == 0 {
		return out, nil
	}
	key, err := logKey(label, pemBytes)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrTrustMaterial, label, err)
	}
	sum := sha256.Sum256(der)
	out[hex.EncodeToString(sum[:])] = &root.TransparencyLog{BaseURL: url, ID: sum[:], ValidityPeriodStart: start,
		HashFunc: crypto.SHA256, PublicKey: key, SignatureHashFunc: crypto.SHA256}
	return out, nil
}

// RootFiles names the PEM files of a RootMaterial (empty: left out).
type RootFiles struct {
	FulcioChain, RekorKey, CTLogKey, TSAChain string
}

// CreateTrustedRootFile reads files into m, creates the trusted root and
// writes it to out (WriteTrustedRootFile), returning its digest. Refusals
// name the flag (`trusted-root create`'s) and the file.
func CreateTrustedRootFile(files RootFiles, m RootMaterial, out string, force bool) (string, error) {
	l := bytesLabels
	for _, f := range []struct {
		flag, path string
		into       *[]byte
		label      *string
	}{
		{"--fulcio-chain", files.FulcioChain, &m.FulcioChain, &l.fulcio},
		{"--rekor-key", files.RekorKey, &m.RekorKeys, &l.rekor},
		{"--ctlog-key", files.CTLogKey, &m.CTLogKeys, &l.ctlog},
		{"--tsa-chain", files.TSAChain, &m.TSAChain, &l.tsa},
	} {
		if f.path == "" {
			continue
		}
		b, err := readPEMFile(f.path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.flag, err)
		}
		*f.into, *f.label = b, f.flag+" "+f.path
	}
	raw, _, err := createTrustedRoot(m, l)
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
		return nil, fmt.Errorf("%s: %w: %w", path, ErrTrustMaterial, err) // a directory, say
	}
	if len(b) > MaxTrustedRootSize {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrTrustMaterial, MaxTrustedRootSize)
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
