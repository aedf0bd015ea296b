package testsigstore

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"net/url"
	"time"

	ct "github.com/google/certificate-transparency-go"
	cttls "github.com/google/certificate-transparency-go/tls"
	ctx509 "github.com/google/certificate-transparency-go/x509"
	ctx509util "github.com/google/certificate-transparency-go/x509util"
)

// CertOptions change a leaf certificate.
type CertOptions struct {
	// NotBefore and NotAfter override the validity (default: one minute
	// before the signing time to ten minutes after, like Fulcio's).
	NotBefore, NotAfter time.Time
	// NoSCT leaves out the embedded signed certificate timestamp.
	NoSCT bool
}

// Leaf issues a Fulcio-style code-signing certificate for a fresh P-256 key
// bound to id, as of time at, with an SCT of the CT log embedded.
func (s *Sigstore) Leaf(id Identity, at time.Time, o CertOptions) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	cert, err := s.LeafFor(id, key.Public(), at, o)
	return cert, key, err
}

// LeafFor is Leaf for a given public key (the test Fulcio's requests).
func (s *Sigstore) LeafFor(id Identity, pub crypto.PublicKey, at time.Time, o CertOptions) (*x509.Certificate, error) {
	exts, err := render(id.Extensions)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:    s.nextSerial(),
		NotBefore:       at.Add(-time.Minute),
		NotAfter:        at.Add(10 * time.Minute),
		KeyUsage:        x509.KeyUsageDigitalSignature,
		ExtKeyUsage:     []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: exts,
	}
	if !o.NotBefore.IsZero() {
		tmpl.NotBefore = o.NotBefore
	}
	if !o.NotAfter.IsZero() {
		tmpl.NotAfter = o.NotAfter
	}
	switch {
	case id.Email != "":
		tmpl.EmailAddresses = []string{id.Email}
	case id.URI != "":
		u, err := url.Parse(id.URI)
		if err != nil {
			return nil, fmt.Errorf("testsigstore: identity URI %q: %w", id.URI, err)
		}
		tmpl.URIs = []*url.URL{u}
	default:
		return nil, fmt.Errorf("testsigstore: identity without email or URI")
	}
	if o.NoSCT {
		return s.issue(tmpl, pub)
	}
	// The SCT signs the certificate's TBS without the SCT list, the way a
	// CT log signs Fulcio's precertificate: issue once with a placeholder
	// list, take that TBS without it, sign, and issue the final certificate
	// from the same template with the real list.
	base := tmpl.ExtraExtensions
	tmpl.ExtraExtensions = append(base[:len(base):len(base)], sctExtension(nil))
	draft, err := s.issue(tmpl, pub)
	if err != nil {
		return nil, err
	}
	sct, err := s.sct(draft, at)
	if err != nil {
		return nil, err
	}
	tmpl.ExtraExtensions = append(base[:len(base):len(base)], sctExtension(sct))
	return s.issue(tmpl, pub)
}

func (s *Sigstore) issue(tmpl *x509.Certificate, pub crypto.PublicKey) (*x509.Certificate, error) {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.Intermediate, pub, s.interKey)
	if err != nil {
		return nil, fmt.Errorf("testsigstore: leaf: %w", err)
	}
	return x509.ParseCertificate(der)
}

// sct returns the CT log's signed certificate timestamp for draft.
func (s *Sigstore) sct(draft *x509.Certificate, at time.Time) (*ct.SignedCertificateTimestamp, error) {
	chain, err := ctx509.ParseCertificates(append(append([]byte{}, draft.Raw...), s.Intermediate.Raw...))
	if err != nil {
		return nil, err
	}
	ts := uint64(at.UnixMilli())
	leaf, err := ct.MerkleTreeLeafForEmbeddedSCT(chain, ts)
	if err != nil {
		return nil, err
	}
	der, _ := x509.MarshalPKIXPublicKey(s.ctKey.Public())
	sct := ct.SignedCertificateTimestamp{SCTVersion: ct.V1, LogID: ct.LogID{KeyID: sha256.Sum256(der)}, Timestamp: ts}
	input, err := ct.SerializeSCTSignatureInput(sct, ct.LogEntry{Leaf: *leaf})
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(input)
	sig, err := ecdsa.SignASN1(rand.Reader, s.ctKey, h[:])
	if err != nil {
		return nil, err
	}
	sct.Signature = ct.DigitallySigned{
		Algorithm: cttls.SignatureAndHashAlgorithm{Hash: cttls.SHA256, Signature: cttls.ECDSA},
		Signature: sig,
	}
	return &sct, nil
}

// sctExtension encodes an SCT list extension holding sct (for nil, a
// placeholder whose removal yields the precertificate TBS all the same).
func sctExtension(sct *ct.SignedCertificateTimestamp) pkix.Extension {
	if sct == nil {
		sct = &ct.SignedCertificateTimestamp{SCTVersion: ct.V1, Signature: ct.DigitallySigned{
			Algorithm: cttls.SignatureAndHashAlgorithm{Hash: cttls.SHA256, Signature: cttls.ECDSA}, Signature: []byte{0}}}
	}
	list, err := ctx509util.MarshalSCTsIntoSCTList([]*ct.SignedCertificateTimestamp{sct})
	if err != nil {
		panic(err)
	}
	b, err := cttls.Marshal(*list)
	if err != nil {
		panic(err)
	}
	v, err := asn1.Marshal(b)
	if err != nil {
		panic(err)
	}
	return pkix.Extension{Id: asn1.ObjectIdentifier(ctx509.OIDExtensionCTSCT), Value: v}
}

// tsaLeaf issues the TSA's signing certificate (critical timestamping EKU,
// as RFC 3161 requires).
func tsaLeaf(s *Sigstore, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, nb, na time.Time) (*x509.Certificate, error) {
	eku, err := asn1.Marshal([]asn1.ObjectIdentifier{{1, 3, 6, 1, 5, 5, 7, 3, 8}})
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:    s.nextSerial(),
		Subject:         pkix.Name{CommonName: "addonpack test tsa", Organization: []string{"addonpack.test"}},
		NotBefore:       nb,
		NotAfter:        na,
		KeyUsage:        x509.KeyUsageDigitalSignature,
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Critical: true, Value: eku}},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, s.tsaKey.Public(), parentKey)
	if err != nil {
		return nil, fmt.Errorf("testsigstore: tsa leaf: %w", err)
	}
	return x509.ParseCertificate(der)
}
