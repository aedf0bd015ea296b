package testsigstore

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"maps"
	"math/big"
	"sync/atomic"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// URLs the test Sigstore names itself by in trusted roots. Nothing listens
// there unless a test starts the HTTP servers of this package.
const (
	FulcioURL = "https://fulcio.test.invalid"
	RekorURL  = "https://rekor.test.invalid"
	CTLogURL  = "https://ctfe.test.invalid"
	TSAURL    = "https://tsa.test.invalid"
)

// Sigstore is a complete private Sigstore held in memory: a Fulcio-style CA
// (root and intermediate), a Rekor log key, a CT log key and an RFC 3161
// timestamping authority. Its zero value is not usable; call New.
type Sigstore struct {
	Root, Intermediate *x509.Certificate
	rootKey, interKey  *ecdsa.PrivateKey

	TSAChain []*x509.Certificate // leaf, intermediate, root
	tsaKey   *ecdsa.PrivateKey

	rekorKey   *ecdsa.PrivateKey
	rekorV2Key *ecdsa.PrivateKey // the Rekor v2 log's checkpoint key
	ctKey      *ecdsa.PrivateKey

	// Start and End bound the validity of the CA, the logs and the TSA as
	// the trusted root states it (their "validFor"); the certificates
	// themselves are valid longer. CAStart and CAEnd, when set, bound the
	// CA alone.
	Start, End     time.Time
	CAStart, CAEnd time.Time

	serial atomic.Int64
}

// Option changes how New builds a Sigstore.
type Option func(*Sigstore)

// WithValidity sets the period the trusted root declares the CA, the logs
// and the TSA valid for (default: from one day ago to one day ahead).
func WithValidity(start, end time.Time) Option {
	return func(s *Sigstore) { s.Start, s.End = start, end }
}

// WithCAValidity sets the period the trusted root declares the Fulcio CA
// valid for, apart from the logs' and the TSA's.
func WithCAValidity(start, end time.Time) Option {
	return func(s *Sigstore) { s.CAStart, s.CAEnd = start, end }
}

// New creates a Sigstore with fresh P-256 keys.
func New(opts ...Option) (*Sigstore, error) {
	now := time.Now()
	s := &Sigstore{Start: now.Add(-24 * time.Hour), End: now.Add(24 * time.Hour)}
	for _, o := range opts {
		o(s)
	}
	keys := make([]*ecdsa.PrivateKey, 7)
	for i := range keys {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	s.rootKey, s.interKey, s.tsaKey, s.rekorKey, s.ctKey, s.rekorV2Key = keys[0], keys[1], keys[2], keys[3], keys[4], keys[6]
	// Certificates outlive the declared validity so that tests can move the
	// signing time outside Start..End and see the trusted root refuse it.
	notBefore, notAfter := s.Start.Add(-30*24*time.Hour), s.End.Add(30*24*time.Hour)
	var err error
	if s.Root, err = s.ca(pkix.Name{CommonName: "addonpack test sigstore", Organization: []string{"addonpack.test"}}, nil, s.rootKey, s.rootKey, notBefore, notAfter, nil); err != nil {
		return nil, err
	}
	if s.Intermediate, err = s.ca(pkix.Name{CommonName: "addonpack test sigstore intermediate", Organization: []string{"addonpack.test"}},
		s.Root, s.rootKey, s.interKey, notBefore, notAfter, []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}); err != nil {
		return nil, err
	}
	tsaInter, err := s.ca(pkix.Name{CommonName: "addonpack test tsa intermediate", Organization: []string{"addonpack.test"}},
		s.Root, s.rootKey, keys[5], notBefore, notAfter, []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping})
	if err != nil {
		return nil, err
	}
	tsaLeaf, err := tsaLeaf(s, tsaInter, keys[5], notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	s.TSAChain = []*x509.Certificate{tsaLeaf, tsaInter, s.Root}
	return s, nil
}

func (s *Sigstore) nextSerial() *big.Int { return big.NewInt(s.serial.Add(1) + 1000) }

// ca issues a CA certificate for key, signed by parentKey (self-signed when
// parent is nil).
func (s *Sigstore) ca(subject pkix.Name, parent *x509.Certificate, parentKey, key *ecdsa.PrivateKey, nb, na time.Time, eku []x509.ExtKeyUsage) (*x509.Certificate, error) {
	tmpl := &x509.Certificate{
		SerialNumber:          s.nextSerial(),
		Subject:               subject,
		NotBefore:             nb,
		NotAfter:              na,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		ExtKeyUsage:           eku,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		return nil, fmt.Errorf("testsigstore: %s: %w", subject.CommonName, err)
	}
	return x509.ParseCertificate(der)
}

// LogID returns the hex key id (SHA-256 of the PKIX key) a log is known by.
func LogID(pub crypto.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic(err) // only ECDSA keys generated here reach this
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// RekorPublicKey and CTLogPublicKey return the logs' public keys.
func (s *Sigstore) RekorPublicKey() crypto.PublicKey { return s.rekorKey.Public() }

// CTLogPublicKey returns the CT log's public key.
func (s *Sigstore) CTLogPublicKey() crypto.PublicKey { return s.ctKey.Public() }

// RootOptions leave parts out of a trusted root, so that a test can show
// which checks the root's content makes mandatory. RekorV2 adds the Rekor
// v2 log (baseUrl RekorV2URL) to the root's tlogs, beside the v1 log
// unless WithoutRekor.
type RootOptions struct {
	WithoutRekor, WithoutCTLog, WithoutTSA bool
	RekorV2                                bool
}

// TrustedRoot returns the Sigstore trusted root of s.
func (s *Sigstore) TrustedRoot(o RootOptions) (*root.TrustedRoot, error) {
	caStart, caEnd := s.Start, s.End
	if !s.CAStart.IsZero() {
		caStart, caEnd = s.CAStart, s.CAEnd
	}
	cas := []root.CertificateAuthority{&root.FulcioCertificateAuthority{
		Root: s.Root, Intermediates: []*x509.Certificate{s.Intermediate},
		ValidityPeriodStart: caStart, ValidityPeriodEnd: caEnd, URI: FulcioURL,
	}}
	logs := func(pub crypto.PublicKey, url string) map[string]*root.TransparencyLog {
		id := LogID(pub)
		raw, _ := hex.DecodeString(id)
		return map[string]*root.TransparencyLog{id: {
			BaseURL: url, ID: raw, ValidityPeriodStart: s.Start, ValidityPeriodEnd: s.End,
			HashFunc: crypto.SHA256, PublicKey: pub, SignatureHashFunc: crypto.SHA256,
		}}
	}
	rekor, ct := logs(s.rekorKey.Public(), RekorURL), logs(s.ctKey.Public(), CTLogURL)
	var tsas []root.TimestampingAuthority
	if !o.WithoutTSA {
		tsas = []root.TimestampingAuthority{&root.SigstoreTimestampingAuthority{
			Root: s.Root, Intermediates: []*x509.Certificate{s.TSAChain[1]}, Leaf: s.TSAChain[0],
			ValidityPeriodStart: s.Start, ValidityPeriodEnd: s.End, URI: TSAURL,
		}}
	}
	if o.WithoutRekor {
		rekor = map[string]*root.TransparencyLog{}
	}
	if o.RekorV2 {
		maps.Copy(rekor, logs(s.rekorV2Key.Public(), RekorV2URL))
	}
	if o.WithoutCTLog {
		ct = map[string]*root.TransparencyLog{}
	}
	return root.NewTrustedRoot(root.TrustedRootMediaType01, cas, ct, tsas, rekor)
}

// TrustedRootJSON returns the trusted root in Sigstore's trusted_root.json
// form, the file `addonpack --trusted-root` and `cosign --trusted-root` read.
func (s *Sigstore) TrustedRootJSON(o RootOptions) ([]byte, error) {
	tr, err := s.TrustedRoot(o)
	if err != nil {
		return nil, err
	}
	return tr.MarshalJSON()
}

// Material is s's public trust material as PEM, the inputs of `addonpack
// trusted-root create` (and of a private Sigstore's operators).
type Material struct {
	FulcioChain []byte // intermediate, root
	RekorKey    []byte
	CTLogKey    []byte
	TSAChain    []byte // signing certificate, intermediate, root
}

// MaterialPEM returns s's public trust material.
func (s *Sigstore) MaterialPEM() (Material, error) {
	var m Material
	var err error
	if m.FulcioChain, err = cryptoutils.MarshalCertificatesToPEM([]*x509.Certificate{s.Intermediate, s.Root}); err != nil {
		return m, err
	}
	if m.RekorKey, err = cryptoutils.MarshalPublicKeyToPEM(s.rekorKey.Public()); err != nil {
		return m, err
	}
	if m.CTLogKey, err = cryptoutils.MarshalPublicKeyToPEM(s.ctKey.Public()); err != nil {
		return m, err
	}
	m.TSAChain, err = cryptoutils.MarshalCertificatesToPEM(s.TSAChain)
	return m, err
}
