package verify_test

import (
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

// material is trusted-root create's input by flag.
type material map[string][]byte

// create writes m to files and runs CreateTrustedRootFile on them,
// returning the files by flag and the error; it fails t if anything was
// written when the creation failed.
func (m material) create(t *testing.T) (map[string]string, error) {
	t.Helper()
	dir := t.TempDir()
	var files verify.RootFiles
	paths := map[string]string{}
	for flag, into := range map[string]*string{"--fulcio-chain": &files.FulcioChain, "--rekor-key": &files.RekorKey,
		"--ctlog-key": &files.CTLogKey, "--tsa-chain": &files.TSAChain} {
		b, ok := m[flag]
		if !ok {
			continue
		}
		*into = filepath.Join(dir, strings.TrimPrefix(flag, "--")+".pem")
		paths[flag] = *into
		if err := os.WriteFile(*into, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out", "trusted_root.json")
	if err := os.Mkdir(filepath.Dir(out), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := verify.CreateTrustedRootFile(files, verify.RootMaterial{}, out, false)
	if left, _ := os.ReadDir(filepath.Dir(out)); err != nil && len(left) != 0 {
		t.Errorf("a refused creation left %v", left)
	}
	return paths, err
}

// TestCreateTrustedRootAcceptsMaterial: what the checks accept — the
// test PKI's chains, a lone self-signed root, P-384, RSA 3072 and Ed25519
// keys, an intermediate with no extended key usage at all.
func TestCreateTrustedRootAcceptsMaterial(t *testing.T) {
	p := newTestPKI(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 3072)
	if err != nil {
		t.Fatal(err)
	}
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	p384 := p.ecKey(elliptic.P384())
	lone := p.issue("lone root", p384.Public(), nil, p384, nil)
	open := p.issue("open intermediate", p.interKey.Public(), p.root, p.rootKey, nil)
	for name, m := range map[string]material{
		"test PKI, every part": {"--fulcio-chain": certsPEM(p.inter, p.root), "--rekor-key": pubPEM(t, p.interKey.Public()),
			"--ctlog-key": pubPEM(t, rsaKey.Public()), "--tsa-chain": certsPEM(p.tsa, p.tsaInter, p.root)},
		"lone P-384 root, Ed25519 Rekor key": {"--fulcio-chain": certsPEM(lone), "--rekor-key": pubPEM(t, edPub)},
		"intermediate without EKU, TSA without intermediate": {"--fulcio-chain": certsPEM(open, p.root),
			"--tsa-chain": certsPEM(p.issue("direct tsa", p.key.Public(), p.root, p.rootKey, tsaLeaf(true, x509.ExtKeyUsageTimeStamping)), p.root)},
	} {
		if _, err := m.create(t); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCreateTrustedRootRefusesChains: certificates given as CAs that are
// not, chains that do not chain, and files that hold something else are
// refused (ErrTrustMaterial, exit 3), naming the flag, the file, the
// certificate and the rule; nothing is written.
func TestCreateTrustedRootRefusesChains(t *testing.T) {
	p := newTestPKI(t)
	rekor := pubPEM(t, p.interKey.Public())
	code := p.issue("signer@example.com", p.key.Public(), p.inter, p.interKey, leaf)
	selfLeaf := p.issue("self-signed leaf", p.key.Public(), nil, p.key, leaf)
	noBC := p.issue("intermediate without basic constraints", p.interKey.Public(), p.root, p.rootKey, func(c *x509.Certificate) { c.BasicConstraintsValid, c.IsCA = false, false })
	noSign := p.issue("intermediate without certSign", p.interKey.Public(), p.root, p.rootKey, func(c *x509.Certificate) { c.KeyUsage = x509.KeyUsageDigitalSignature })
	lookAlike := p.issue("test fulcio root", p.key.Public(), nil, p.key, nil) // same name, another key
	expired := p.issue("expired root", p.rootKey.Public(), nil, p.rootKey, func(c *x509.Certificate) { c.NotBefore, c.NotAfter = p.now.Add(-48*time.Hour), p.now.Add(-time.Hour) })
	early := p.issue("future intermediate", p.interKey.Public(), p.root, p.rootKey, func(c *x509.Certificate) { c.NotBefore = p.now.Add(time.Hour) })
	pathZero := p.issue("root with path length 0", p.rootKey.Public(), nil, p.rootKey, func(c *x509.Certificate) { c.MaxPathLen, c.MaxPathLenZero = 0, true })
	tlsOnly := p.issue("intermediate for TLS", p.interKey.Public(), p.root, p.rootKey, func(c *x509.Certificate) { c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth} })
	weak, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	rsa1024 := p.issue("RSA 1024 intermediate", weak.Public(), p.root, p.rootKey, nil)
	p224 := p.issue("P-224 intermediate", p.ecKey(elliptic.P224()).Public(), p.root, p.rootKey, nil)
	critical := p.issue("intermediate with an unknown critical extension", p.interKey.Public(), p.root, p.rootKey, func(c *x509.Certificate) {
		c.ExtraExtensions = []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, Critical: true, Value: []byte{5, 0}}}
	})
	chain := certsPEM(p.inter, p.root)
	var many []byte
	for range 11 {
		many = append(many, certsPEM(p.root)...)
	}

	for _, tc := range []struct {
		name  string
		chain []byte
		says  []string
	}{
		{"leaf before the chain", certsPEM(code, p.inter, p.root), []string{"certificate 1 of 3", "CN=signer@example.com", "not a certificate authority"}},
		{"leaf alone", certsPEM(code), []string{"certificate 1 of 1", "CN=signer@example.com", "not a certificate authority"}},
		{"self-signed leaf as the root", certsPEM(selfLeaf), []string{"CN=self-signed leaf", "not a certificate authority"}},
		{"intermediate without basic constraints", certsPEM(noBC, p.root), []string{"certificate 1 of 2", "CN=intermediate without basic constraints", "not a certificate authority"}},
		{"CA without certificate signing", certsPEM(noSign, p.root), []string{"CN=intermediate without certSign", "does not include certificate signing"}},
		{"root first", certsPEM(p.root, p.inter), []string{"certificate 1 of 2", "CN=test fulcio root", "not by certificate 2"}},
		{"no root", certsPEM(p.inter), []string{"CN=test fulcio intermediate", "not by itself"}},
		{"look-alike root", certsPEM(p.inter, lookAlike), []string{"certificate 1 of 2", "CN=test fulcio intermediate", "not signed by certificate 2"}},
		{"root twice", certsPEM(p.inter, p.root, p.root), []string{"certificate 3 of 3", "the same certificate as certificate 2"}},
		{"expired root", certsPEM(expired), []string{"CN=expired root", "expired at"}},
		{"intermediate not yet valid", certsPEM(early, p.root), []string{"CN=future intermediate", "not valid yet"}},
		{"path length exceeded", certsPEM(p.issue("under path zero", p.interKey.Public(), pathZero, p.rootKey, nil), pathZero), []string{"certificate 2 of 2", "path length constraint 0"}},
		{"intermediate for another purpose", certsPEM(tlsOnly, p.root), []string{"CN=intermediate for TLS", "excludes code signing"}},
		{"RSA 1024 key", certsPEM(rsa1024, p.root), []string{"CN=RSA 1024 intermediate", "RSA key of 1024 bits"}},
		{"P-224 key", certsPEM(p224, p.root), []string{"CN=P-224 intermediate", "curve P-224"}},
		{"unknown critical extension", certsPEM(critical, p.root), []string{"CN=intermediate with an unknown critical extension", "critical extension"}},
		{"trailing text", cat(chain, []byte("and more\n")), []string{"text outside PEM blocks"}},
		{"leading text", cat([]byte("subject=CN = test fulcio intermediate\n"), chain), []string{"text outside PEM blocks at byte 0"}},
		{"DER, not PEM", p.inter.Raw, []string{"text outside PEM blocks at byte 0"}},
		{"broken block before a good one", cat([]byte("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"), chain), []string{"malformed PEM block at byte 0"}},
		{"block inside a block", cat([]byte("-----BEGIN CERTIFICATE-----\n"), chain), []string{"malformed PEM block at byte 0"}},
		{"private key", cat(chain, pemBlock(t, "EC PRIVATE KEY", p.interKey)), []string{"PEM block 3 is a private key (EC PRIVATE KEY)"}},
		{"PKCS#8 private key", cat(pemBlock(t, "PRIVATE KEY", p.interKey), chain), []string{"PEM block 1 is a private key"}},
		{"public key in a chain", cat(chain, rekor), []string{"PEM block 3 is a PUBLIC KEY, not a CERTIFICATE"}},
		{"PEM headers", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: p.root.Raw}), []string{"has headers"}},
		{"empty", nil, []string{"no PEM blocks"}},
		{"eleven certificates", many, []string{"more than 10 PEM blocks"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := material{"--fulcio-chain": tc.chain, "--rekor-key": rekor}.create(t)
			assertMaterialRefused(t, err, "--fulcio-chain "+files["--fulcio-chain"], tc.says)
		})
	}
}

func assertMaterialRefused(t *testing.T, err error, label string, says []string) {
	t.Helper()
	if !errors.Is(err, verify.ErrTrustMaterial) || errdef.ClassOf(err) != errdef.ErrInvalid {
		t.Fatalf("got %v (class %v), want ErrTrustMaterial (exit 3)", err, errdef.ClassOf(err))
	}
	for _, s := range append([]string{label + ": "}, says...) {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message does not say %q: %v", s, err)
		}
	}
}

// TestCreateTrustedRootRefusesTSAChains: a TSA chain must start with a
// signing certificate fit for RFC 3161 and chain through CAs to its root.
func TestCreateTrustedRootRefusesTSAChains(t *testing.T) {
	p := newTestPKI(t)
	issue := func(cn string, edit func(*x509.Certificate)) *x509.Certificate {
		return p.issue(cn, p.key.Public(), p.tsaInter, p.tsaInterKey, edit)
	}
	then := func(a, b func(*x509.Certificate)) func(*x509.Certificate) {
		return func(c *x509.Certificate) { a(c); b(c) }
	}
	caLeaf := issue("tsa that is a CA", then(tsaLeaf(true, x509.ExtKeyUsageTimeStamping), func(c *x509.Certificate) {
		c.BasicConstraintsValid, c.IsCA, c.KeyUsage = true, true, x509.KeyUsageDigitalSignature|x509.KeyUsageCertSign
	}))
	leafInter := p.issue("tsa intermediate that is a leaf", p.tsaInterKey.Public(), p.root, p.rootKey, tsaLeaf(true, x509.ExtKeyUsageTimeStamping))
	codeInter := p.issue("tsa intermediate for code signing", p.tsaInterKey.Public(), p.root, p.rootKey, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}
	})
	other := newTestPKI(t)
	for _, tc := range []struct {
		name  string
		chain []byte
		says  []string
	}{
		{"signing certificate alone", certsPEM(p.tsa), []string{"want the signing certificate and its root, got 1"}},
		{"signing certificate is a CA", certsPEM(caLeaf, p.tsaInter, p.root), []string{"certificate 1 of 3", "CN=tsa that is a CA", "a CA certificate as the TSA's signing certificate"}},
		{"time stamping not critical", certsPEM(issue("tsa with EKU not critical", tsaLeaf(false, x509.ExtKeyUsageTimeStamping)), p.tsaInter, p.root), []string{"CN=tsa with EKU not critical", "in a critical extension (RFC 3161"}},
		{"time stamping and code signing", certsPEM(issue("tsa with two EKUs", tsaLeaf(true, x509.ExtKeyUsageTimeStamping, x509.ExtKeyUsageCodeSigning)), p.tsaInter, p.root), []string{"CN=tsa with two EKUs", "exactly one extended key usage"}},
		{"no extended key usage", certsPEM(issue("tsa without EKU", tsaLeaf(true)), p.tsaInter, p.root), []string{"CN=tsa without EKU", "exactly one extended key usage"}},
		{"code-signing leaf as TSA", certsPEM(issue("code signer", leaf), p.tsaInter, p.root), []string{"CN=code signer", "exactly one extended key usage"}},
		{"key usage for encryption only", certsPEM(issue("tsa for encryption", then(tsaLeaf(true, x509.ExtKeyUsageTimeStamping), func(c *x509.Certificate) { c.KeyUsage = x509.KeyUsageKeyEncipherment })), p.tsaInter, p.root), []string{"CN=tsa for encryption", "neither digital signature"}},
		{"intermediate that is a leaf", certsPEM(p.issue("tsa", p.key.Public(), leafInter, p.tsaInterKey, tsaLeaf(true, x509.ExtKeyUsageTimeStamping)), leafInter, p.root), []string{"certificate 2 of 3", "CN=tsa intermediate that is a leaf", "not a certificate authority"}},
		{"intermediate for code signing", certsPEM(p.issue("tsa", p.key.Public(), codeInter, p.tsaInterKey, tsaLeaf(true, x509.ExtKeyUsageTimeStamping)), codeInter, p.root), []string{"CN=tsa intermediate for code signing", "excludes time stamping"}},
		{"signing certificate expired", certsPEM(issue("expired tsa", then(tsaLeaf(true, x509.ExtKeyUsageTimeStamping), func(c *x509.Certificate) { c.NotAfter = p.now.Add(-time.Minute) })), p.tsaInter, p.root), []string{"CN=expired tsa", "expired at"}},
		{"another PKI's root", certsPEM(p.tsa, p.tsaInter, other.root), []string{"certificate 2 of 3", "not signed by certificate 3"}},
		{"intermediate left out", certsPEM(p.tsa, p.root), []string{"certificate 1 of 2", "CN=test tsa", "issued by"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := material{"--fulcio-chain": certsPEM(p.inter, p.root), "--rekor-key": pubPEM(t, p.interKey.Public()), "--tsa-chain": tc.chain}.create(t)
			assertMaterialRefused(t, err, "--tsa-chain "+files["--tsa-chain"], tc.says)
		})
	}
}

// TestCreateTrustedRootRefusesLogKeys: a Rekor or CT log key must be one
// PKIX public key of a kind a trusted root can state; certificates,
// private keys, several keys, weak or unknown keys and trailing text are
// refused.
func TestCreateTrustedRootRefusesLogKeys(t *testing.T) {
	p := newTestPKI(t)
	key := pubPEM(t, p.interKey.Public())
	rsaKey := func(bits int) []byte {
		k, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			t.Fatal(err)
		}
		return pubPEM(t, k.Public())
	}
	x25519, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// secp256k1 (1.3.132.0.10), a curve no trusted root can state.
	params, _ := asn1.Marshal(asn1.ObjectIdentifier{1, 3, 132, 0, 10})
	k1, _ := asn1.Marshal(struct {
		Algo pkix.AlgorithmIdentifier
		Key  asn1.BitString
	}{pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}, Parameters: asn1.RawValue{FullBytes: params}},
		asn1.BitString{Bytes: append([]byte{4}, make([]byte, 64)...), BitLength: 65 * 8}})
	for _, tc := range []struct {
		name string
		key  []byte
		says []string
	}{
		{"CA certificate", certsPEM(p.root), []string{"a CA certificate (CN=test fulcio root,O=addonpack.test), not a public key"}},
		{"leaf certificate", certsPEM(p.tsa), []string{"a certificate (CN=test tsa,O=addonpack.test), not a public key"}},
		{"two keys", cat(key, pubPEM(t, p.key.Public())), []string{"2 PEM blocks: want exactly one PUBLIC KEY"}},
		{"key and its certificate", cat(key, certsPEM(p.inter)), []string{"2 PEM blocks"}},
		{"EC private key", pemBlock(t, "EC PRIVATE KEY", p.key), []string{"PEM block 1 is a private key (EC PRIVATE KEY)"}},
		{"PKCS#8 private key after the key", cat(key, pemBlock(t, "PRIVATE KEY", p.key)), []string{"PEM block 2 is a private key (PRIVATE KEY)"}},
		{"RSA 1024", rsaKey(1024), []string{"RSA key of 1024 bits: want 2048, 3072 or 4096"}},
		{"RSA 1536", rsaKey(1536), []string{"RSA key of 1536 bits"}},
		{"P-224", pubPEM(t, p.ecKey(elliptic.P224()).Public()), []string{"ECDSA key on curve P-224"}},
		{"secp256k1", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: k1}), []string{"public key: x509: unsupported elliptic curve"}},
		{"X25519", pubPEM(t, x25519.PublicKey()), []string{"*ecdh.PublicKey key: want ECDSA, RSA or Ed25519"}},
		{"trailing text", cat(key, []byte("#")), []string{"text outside PEM blocks"}},
		{"PKCS#1 RSA key", pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: []byte{0x30, 0}}), []string{"a RSA PUBLIC KEY block: want a PUBLIC KEY (PKIX)"}},
		{"not a key inside", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: p.root.Raw}), []string{"public key: asn1: structure error"}},
	} {
		for _, flag := range []string{"--rekor-key", "--ctlog-key"} {
			t.Run(tc.name+" as "+flag, func(t *testing.T) {
				m := material{"--fulcio-chain": certsPEM(p.inter, p.root), "--rekor-key": key, flag: tc.key}
				files, err := m.create(t)
				assertMaterialRefused(t, err, flag+" "+files[flag], tc.says)
			})
		}
	}
}
