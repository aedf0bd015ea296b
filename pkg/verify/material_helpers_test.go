package verify_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// testPKI is a private Sigstore's certificate material, made certificate by
// certificate so that a test can make any one of them wrong: a Fulcio root
// and intermediate, a TSA intermediate under the same root and the TSA's
// signing certificate, all valid from an hour before now to a day after.
type testPKI struct {
	t   *testing.T
	now time.Time
	n   int64

	root, inter, tsaInter, tsa          *x509.Certificate
	rootKey, interKey, tsaInterKey, key crypto.Signer
}

func newTestPKI(t *testing.T) *testPKI {
	p := &testPKI{t: t, now: time.Now()}
	p.rootKey, p.interKey, p.tsaInterKey, p.key = p.ecKey(elliptic.P256()), p.ecKey(elliptic.P256()), p.ecKey(elliptic.P256()), p.ecKey(elliptic.P256())
	p.root = p.issue("test fulcio root", p.rootKey.Public(), nil, p.rootKey, nil)
	p.inter = p.issue("test fulcio intermediate", p.interKey.Public(), p.root, p.rootKey, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}
	})
	p.tsaInter = p.issue("test tsa intermediate", p.tsaInterKey.Public(), p.root, p.rootKey, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}
	})
	p.tsa = p.issue("test tsa", p.key.Public(), p.tsaInter, p.tsaInterKey, tsaLeaf(true, x509.ExtKeyUsageTimeStamping))
	return p
}

func (p *testPKI) ecKey(c elliptic.Curve) crypto.Signer {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		p.t.Fatal(err)
	}
	return k
}

// issue makes a certificate named cn for pub, signed by parentKey as
// parent (self-signed when parent is nil): a CA valid from an hour ago to
// a day ahead unless edit changes the template.
func (p *testPKI) issue(cn string, pub crypto.PublicKey, parent *x509.Certificate, parentKey crypto.Signer, edit func(*x509.Certificate)) *x509.Certificate {
	p.t.Helper()
	p.n++
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(p.n),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"addonpack.test"}},
		NotBefore:             p.now.Add(-time.Hour),
		NotAfter:              p.now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	if edit != nil {
		edit(tmpl)
	}
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, parentKey)
	if err != nil {
		p.t.Fatalf("%s: %v", cn, err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		p.t.Fatalf("%s: %v", cn, err)
	}
	return c
}

// leaf edits a template into a Fulcio-style code-signing leaf.
func leaf(c *x509.Certificate) {
	c.IsCA, c.KeyUsage, c.ExtKeyUsage = false, x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}
}

// tsaLeaf edits a template into a TSA signing certificate with the given
// extended key usages, in a critical extension or not.
func tsaLeaf(critical bool, ekus ...x509.ExtKeyUsage) func(*x509.Certificate) {
	oids := map[x509.ExtKeyUsage]asn1.ObjectIdentifier{
		x509.ExtKeyUsageTimeStamping: {1, 3, 6, 1, 5, 5, 7, 3, 8},
		x509.ExtKeyUsageCodeSigning:  {1, 3, 6, 1, 5, 5, 7, 3, 3},
	}
	var list []asn1.ObjectIdentifier
	for _, e := range ekus {
		list = append(list, oids[e])
	}
	return func(c *x509.Certificate) {
		c.IsCA, c.BasicConstraintsValid, c.KeyUsage = false, false, x509.KeyUsageDigitalSignature
		if len(list) == 0 {
			return
		}
		v, err := asn1.Marshal(list)
		if err != nil {
			panic(err)
		}
		c.ExtraExtensions = append(c.ExtraExtensions, pkix.Extension{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Critical: critical, Value: v})
	}
}

// certsPEM is certificates as one PEM file.
func certsPEM(certs ...*x509.Certificate) []byte {
	var b []byte
	for _, c := range certs {
		b = append(b, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	return b
}

// pubPEM is a public key as a PEM PUBLIC KEY.
func pubPEM(t *testing.T, pub crypto.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// cat concatenates byte slices.
func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// pemBlock is a private key as a PEM block of type typ: "EC PRIVATE KEY"
// (SEC 1) or anything else (PKCS #8).
func pemBlock(t *testing.T, typ string, key crypto.Signer) []byte {
	var der []byte
	var err error
	if typ == "EC PRIVATE KEY" {
		der, err = x509.MarshalECPrivateKey(key.(*ecdsa.PrivateKey))
	} else {
		der, err = x509.MarshalPKCS8PrivateKey(key)
	}
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
