package verify

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/sigstore/cosign/v2/pkg/oci/static"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// classicEntity is a cosign classic keyless layer (certificate, Rekor
// bundle and RFC 3161 timestamp annotations) seen as a sigstore-go signed
// entity, so that bundles and classic layers are verified by one verifier.
type classicEntity struct {
	cert       *x509.Certificate
	content    sgverify.SignatureContent
	entries    []*tlog.Entry
	timestamps [][]byte
	// envelope is an attestation's DSSE envelope as stored: what cosign's
	// RFC 3161 timestamp of an attestation covers (nil for signatures).
	envelope []byte
}

// forRoot returns the entity to verify under r, and whether r's timestamp
// requirement is left to the caller. cosign timestamps an attestation's
// envelope bytes, not its signature, while sigstore-go checks a timestamp
// over the signature. Under a root with Rekor logs the log entry records
// the signature itself, so e is verified as it is and the caller checks the
// timestamp over the envelope (envelopeTimestamp). Under a root without
// Rekor logs the timestamp is the only signing time: sigstore-go verifies
// it over the envelope (envelopeImprint) and checks the certificate at the
// time it proves, never at the current time.
func (e *classicEntity) forRoot(r *TrustedRoot, skipTimestamp bool) (sgverify.SignedEntity, bool) {
	if e.envelope == nil || r.Requirements().TransparencyLog {
		return e, skipTimestamp
	}
	c := *e
	c.content = envelopeImprint{SignatureContent: e.content, envelope: e.envelope}
	return &c, false
}

// envelopeImprint is a DSSE signature content whose Signature(), the bytes
// sigstore-go matches a timestamp's message imprint against, is the whole
// envelope; the envelope itself is verified as usual (sigstore-go reads a
// DSSE signature from EnvelopeContent, never from Signature).
type envelopeImprint struct {
	sgverify.SignatureContent
	envelope []byte
}

func (s envelopeImprint) Signature() []byte { return s.envelope }

func (e *classicEntity) HasInclusionPromise() bool { return len(e.entries) > 0 }
func (e *classicEntity) HasInclusionProof() bool   { return false }
func (e *classicEntity) Version() (string, error)  { return "v0.1", nil }
func (e *classicEntity) VerificationContent() (sgverify.VerificationContent, error) {
	return bundle.NewCertificate(e.cert), nil
}
func (e *classicEntity) SignatureContent() (sgverify.SignatureContent, error) { return e.content, nil }
func (e *classicEntity) Timestamps() ([][]byte, error)                        { return e.timestamps, nil }
func (e *classicEntity) TlogEntries() ([]*tlog.Entry, error)                  { return e.entries, nil }

// isKeylessLayer reports whether a classic layer carries a certificate.
func isKeylessLayer(ann map[string]string) bool { return ann[static.CertificateAnnotationKey] != "" }

// newClassicEntity reads the annotations of a classic layer.
func newClassicEntity(ann map[string]string, content sgverify.SignatureContent) (*classicEntity, error) {
	cert, err := leafCertificate([]byte(ann[static.CertificateAnnotationKey]))
	if err != nil {
		return nil, err
	}
	e := &classicEntity{cert: cert, content: content}
	if b := ann[static.BundleAnnotationKey]; b != "" {
		var rb struct {
			SignedEntryTimestamp []byte
			Payload              struct {
				Body           string `json:"body"`
				IntegratedTime int64  `json:"integratedTime"`
				LogIndex       int64  `json:"logIndex"`
				LogID          string `json:"logID"`
			}
		}
		if err := json.Unmarshal([]byte(b), &rb); err != nil {
			return nil, fmt.Errorf("%w: Rekor bundle annotation: %w", ErrMalformed, err)
		}
		body, err := base64.StdEncoding.DecodeString(rb.Payload.Body)
		if err != nil {
			return nil, fmt.Errorf("%w: Rekor bundle body: %w", ErrMalformed, err)
		}
		logID, err := hex.DecodeString(rb.Payload.LogID)
		if err != nil {
			return nil, fmt.Errorf("%w: Rekor bundle log id: %w", ErrMalformed, err)
		}
		entry, err := tlog.NewEntry(body, rb.Payload.IntegratedTime, rb.Payload.LogIndex, logID, rb.SignedEntryTimestamp, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: Rekor bundle: %w", ErrMalformed, err)
		}
		e.entries = []*tlog.Entry{entry}
	}
	if t := ann[static.RFC3161TimestampAnnotationKey]; t != "" {
		var ts struct{ SignedRFC3161Timestamp []byte }
		if err := json.Unmarshal([]byte(t), &ts); err != nil {
			return nil, fmt.Errorf("%w: RFC 3161 timestamp annotation: %w", ErrMalformed, err)
		}
		e.timestamps = [][]byte{ts.SignedRFC3161Timestamp}
	}
	return e, nil
}

// classicKeylessSignature verifies a keyless .sig layer: the message
// signature over the simple-signing payload pl, with the layer's
// certificate, log entry and timestamp, against the scope's roots.
func (ck checker) classicKeylessSignature(cd *candidate, pl []byte) (*Identity, error) {
	raw, err := base64.StdEncoding.DecodeString(cd.sig)
	if err != nil || cd.sig == "" {
		return nil, fmt.Errorf("%w: missing or undecodable signature annotation", ErrMalformed)
	}
	sum := sha256.Sum256(pl)
	e, err := newClassicEntity(cd.ann, bundle.NewMessageSignature(sum[:], "SHA2_256", raw))
	if err != nil {
		return nil, err
	}
	id, _, err := ck.keyless(cd, e, sgverify.WithArtifact(bytes.NewReader(pl)), false)
	if err != nil {
		return nil, err
	}
	return id, ck.simpleClaim(pl, "identity "+id.Name)
}

// classicKeylessAttestation verifies a keyless .att layer (a DSSE
// envelope). cosign timestamps an attestation's envelope bytes rather than
// its signature, so a root's timestamp requirement is checked here: the
// timestamp over env, chained to the root's TSA, inside the certificate's
// validity and the CA's.
func (ck checker) classicKeylessAttestation(cd *candidate, env []byte) (*Identity, error) {
	var de ssldsse.Envelope
	if err := json.Unmarshal(env, &de); err != nil {
		return nil, fmt.Errorf("%w: DSSE envelope: %w", ErrMalformed, err)
	}
	e, err := newClassicEntity(cd.ann, &bundle.Envelope{Envelope: &de})
	if err != nil {
		return nil, err
	}
	e.envelope = env
	id, _, err := ck.keyless(cd, e, sgverify.WithArtifactDigest(ck.subject.Digest.Algorithm().String(), decodeHex(ck.subject.Digest.Encoded())), true)
	if err != nil {
		return nil, err
	}
	if req := id.Root.Requirements(); req.Timestamp && req.TransparencyLog { // without Rekor logs: checked by keyless (forRoot)
		if err := envelopeTimestamp(id.Root.root, e, env); err != nil {
			return nil, fmt.Errorf("%w: trusted root %q requires an RFC 3161 timestamp: %w", ErrKeyless, id.Root.Name, err)
		}
	}
	return id, nil
}

// envelopeTimestamp verifies e's RFC 3161 timestamp over env and the
// certificate at the time it proves.
func envelopeTimestamp(tr *root.TrustedRoot, e *classicEntity, env []byte) error {
	ts := &classicEntity{cert: e.cert, content: rawSignature(env), timestamps: e.timestamps}
	verified, err := sgverify.VerifySignedTimestampWithThreshold(ts, tr, 1)
	if err != nil {
		return err
	}
	for _, v := range verified {
		if _, err := sgverify.VerifyLeafCertificate(v.Time, e.cert, tr); err != nil {
			return fmt.Errorf("certificate at the timestamp's time %s: %w", v.Time.UTC().Format(time.RFC3339), err)
		}
	}
	return nil
}

// rawSignature is signature content whose "signature" is arbitrary bytes
// (what a timestamp's message imprint covers).
type rawSignature []byte

func (r rawSignature) Signature() []byte                                         { return r }
func (r rawSignature) EnvelopeContent() sgverify.EnvelopeContent                 { return nil }
func (r rawSignature) MessageSignatureContent() sgverify.MessageSignatureContent { return nil }

func decodeHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

func parseCertificates(b []byte) ([]*x509.Certificate, error) {
	return cryptoutils.UnmarshalCertificatesFromPEMLimited(b, 10)
}
