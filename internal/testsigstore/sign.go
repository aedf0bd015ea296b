package testsigstore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/rekor/pkg/types/dsse"
	"github.com/sigstore/rekor/pkg/types/hashedrekord"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

var randReader = rand.Reader

// SignOptions change one signing.
type SignOptions struct {
	// At is the signing time: the log's integrated time, the TSA's time and
	// the centre of the certificate's validity (default: now).
	At   time.Time
	Cert CertOptions
	// NoTlog and NoTimestamp leave out the transparency-log entry or the
	// RFC 3161 timestamp.
	NoTlog, NoTimestamp bool
	// ForeignLog signs the log entry's SET and checkpoint with a key that
	// is not the Rekor log's, while the entry still claims the Rekor log id.
	ForeignLog bool
	// RekorV2 logs the signature in the Rekor v2 log instead (see
	// RootOptions.RekorV2): a hashedrekord v0.0.2 entry (for a DSSE
	// envelope, over the SHA-256 of its PAE, as sigstore-go v1.2 logs it),
	// an inclusion proof and signed checkpoint, no integrated time and no
	// signed entry timestamp. ForeignLog signs its checkpoint with another
	// key.
	RekorV2 bool
	// BundleVersion is the Sigstore bundle version Bundle writes: "0.1"
	// (certificate chain, log entry with its SET only), "0.2" (certificate
	// chain, SET and inclusion proof) or "" for v0.3 (one certificate).
	BundleVersion string
}

// Signed is one keyless signature with everything that makes it verifiable.
type Signed struct {
	Cert          *x509.Certificate
	Key           *ecdsa.PrivateKey
	Chain         []*x509.Certificate              // intermediate, root
	Signature     []byte                           // raw ASN.1 ECDSA signature
	Timestamp     []byte                           // RFC 3161 response over Signature (nil with NoTimestamp)
	entry         *logEntry                        // nil with NoTlog or RekorV2
	v2Entry       *protorekor.TransparencyLogEntry // RekorV2 only
	bundleVersion string                           // SignOptions.BundleVersion
}

// CertPEM returns the leaf certificate as PEM.
func (s *Signed) CertPEM() []byte {
	b, _ := cryptoutils.MarshalCertificateToPEM(s.Cert)
	return b
}

// ChainPEM returns the intermediate and root as PEM.
func (s *Signed) ChainPEM() []byte {
	b, _ := cryptoutils.MarshalCertificatesToPEM(s.Chain)
	return b
}

// SignMessage signs payload (a message signature over its SHA-256, logged
// as a hashedrekord entry), as `cosign sign` signs a simple-signing payload.
func (s *Sigstore) SignMessage(id Identity, payload []byte, o SignOptions) (*Signed, error) {
	h := sha256.Sum256(payload)
	return s.sign(id, o, h[:], func(key *ecdsa.PrivateKey) ([]byte, []byte, string, error) {
		sig, err := ecdsa.SignASN1(randReader, key, h[:])
		return sig, payload, hashedrekord.KIND, err
	})
}

// DSSE is a signed DSSE envelope and the signing around it.
type DSSE struct {
	*Signed
	PayloadType string
	Payload     []byte
	Envelope    []byte // JSON, as DSSE and cosign write it
}

// SignDSSE signs payload of payloadType in a DSSE envelope (logged as a dsse
// entry), as attestations are signed.
func (s *Sigstore) SignDSSE(id Identity, payloadType string, payload []byte, o SignOptions) (*DSSE, error) {
	out := &DSSE{PayloadType: payloadType, Payload: payload}
	pae := fmt.Appendf(nil, "DSSEv1 %d %s %d %s", len(payloadType), payloadType, len(payload), payload)
	h := sha256.Sum256(pae)
	signed, err := s.sign(id, o, h[:], func(key *ecdsa.PrivateKey) ([]byte, []byte, string, error) {
		sig, err := ecdsa.SignASN1(randReader, key, h[:])
		if err != nil {
			return nil, nil, "", err
		}
		env, err := json.Marshal(map[string]any{
			"payloadType": payloadType,
			"payload":     base64.StdEncoding.EncodeToString(payload),
			"signatures":  []map[string]string{{"keyid": "", "sig": base64.StdEncoding.EncodeToString(sig)}},
		})
		out.Envelope = env
		return sig, env, dsse.KIND, err
	})
	out.Signed = signed
	return out, err
}

// sign issues a certificate for id, lets do sign with its key and returns
// the signature, the artifact to log and the entry kind, then logs and
// timestamps the signature as o asks. digest is what was signed (the
// SHA-256 of the payload or of the DSSE PAE), which a Rekor v2 entry logs.
func (s *Sigstore) sign(id Identity, o SignOptions, digest []byte, do func(*ecdsa.PrivateKey) (sig, logged []byte, kind string, err error)) (*Signed, error) {
	at := o.At
	if at.IsZero() {
		at = time.Now()
	}
	cert, key, err := s.Leaf(id, at, o.Cert)
	if err != nil {
		return nil, err
	}
	sig, logged, kind, err := do(key)
	if err != nil {
		return nil, fmt.Errorf("testsigstore: sign: %w", err)
	}
	out := &Signed{Cert: cert, Key: key, Chain: []*x509.Certificate{s.Intermediate, s.Root}, Signature: sig, bundleVersion: o.BundleVersion}
	if !o.NoTimestamp {
		if out.Timestamp, err = s.timestampFor(sig, at); err != nil {
			return nil, fmt.Errorf("testsigstore: timestamp: %w", err)
		}
	}
	if !o.NoTlog {
		logKey := s.rekorKey
		if o.RekorV2 {
			logKey = s.rekorV2Key
		}
		if o.ForeignLog {
			if logKey, err = ecdsa.GenerateKey(elliptic.P256(), randReader); err != nil {
				return nil, err
			}
		}
		if o.RekorV2 {
			if out.v2Entry, err = s.newV2Entry(digest, sig, cert, logKey); err != nil {
				return nil, fmt.Errorf("testsigstore: rekor v2 entry: %w", err)
			}
			return out, nil
		}
		if out.entry, err = s.newEntry(kind, logged, sig, out.CertPEM(), at, logKey); err != nil {
			return nil, err
		}
	}
	return out, nil
}
