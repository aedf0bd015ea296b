package testsigstore

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// fulcioAsk posts a v2 signing-certificate request for key, proving
// possession by signing challenge, with token as bearer.
func fulcioAsk(t *testing.T, url, token string, key *ecdsa.PrivateKey, challenge string) (int, string) {
	t.Helper()
	h := sha256.Sum256([]byte(challenge))
	sig, err := ecdsa.SignASN1(rand.Reader, key, h[:])
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := cryptoutils.MarshalPublicKeyToPEM(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"publicKeyRequest": map[string]any{
		"publicKey":         map[string]string{"algorithm": "ECDSA", "content": string(keyPEM)},
		"proofOfPossession": base64.StdEncoding.EncodeToString(sig),
	}})
	req, _ := http.NewRequest(http.MethodPost, url+"/api/v2/signingCert", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestFulcioIssuesTheWorkflowIdentity(t *testing.T) {
	ss, err := New()
	if err != nil {
		t.Fatal(err)
	}
	srv := StartServers(t, ss)
	w := GitHubWorkflow{Repository: "acme/addons", Workflow: ".github/workflows/release.yaml", Ref: "refs/tags/v1.2.0"}
	claims := w.Claims()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	status, body := fulcioAsk(t, srv.Fulcio.URL, srv.Token(t, claims), key, claims.Subject)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var resp struct {
		SignedCertificateEmbeddedSct struct {
			Chain struct{ Certificates []string }
		}
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	chain := resp.SignedCertificateEmbeddedSct.Chain.Certificates
	if len(chain) != 3 {
		t.Fatalf("chain of %d certificates, want leaf, intermediate, root", len(chain))
	}
	block, _ := pem.Decode([]byte(chain[0]))
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := cryptoutils.EqualKeys(leaf.PublicKey, key.Public()); err != nil {
		t.Errorf("leaf certifies another key: %v", err)
	}
	want := w.Identity()
	if len(leaf.URIs) != 1 || leaf.URIs[0].String() != want.URI {
		t.Errorf("SAN %v, want %s", leaf.URIs, want.URI)
	}
	got, err := certificate.ParseExtensions(leaf.Extensions)
	if err != nil {
		t.Fatal(err)
	}
	if got != want.Extensions {
		t.Errorf("extensions\n got %+v\nwant %+v", got, want.Extensions)
	}
	if d := leaf.NotAfter.Sub(leaf.NotBefore); d > 12*time.Minute {
		t.Errorf("leaf valid %v, want Fulcio's ~10 minutes", d)
	}
	if _, err := leaf.Verify(verifyOpts(ss)); err != nil {
		t.Errorf("leaf does not chain to the test root: %v", err)
	}
}

func TestFulcioRefusals(t *testing.T) {
	ss, err := New()
	if err != nil {
		t.Fatal(err)
	}
	srv := StartServers(t, ss)
	other, err := NewOIDCIssuer()
	if err != nil {
		t.Fatal(err)
	}
	good := GitHubWorkflow{Repository: "acme/addons"}.Claims()
	expired := good
	expired.IssuedAt = jwt.NewNumericDate(time.Now().Add(-time.Hour))
	expired.Expiry = jwt.NewNumericDate(time.Now().Add(-50 * time.Minute))
	wrongAud := good
	wrongAud.Audience = jwt.Audience{"other"}
	unknownIss := good
	unknownIss.Issuer = "https://issuer.example"
	unverified := EmailClaims("dev@example.com", GoogleIssuer)
	unverified.EmailVerified = false
	sign := func(o *OIDCIssuer, c Claims) string {
		tok, err := o.Token(c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for _, tc := range []struct {
		name, token, challenge string
		status                 int
		says                   string
	}{
		{"token of another issuer key", sign(other, good), good.Subject, 401, "error in cryptographic primitive"},
		{"expired token", srv.Token(t, expired), good.Subject, 401, "expired"},
		{"wrong audience", srv.Token(t, wrongAud), good.Subject, 401, "audience"},
		{"untrusted issuer", srv.Token(t, unknownIss), good.Subject, 401, "not trusted"},
		{"unverified e-mail", srv.Token(t, unverified), unverified.Email, 401, "not verified"},
		{"not a JWT", "not.a.jwt", good.Subject, 401, "identity token"},
		{"proof over another subject", srv.Token(t, good), "repo:other/repo:ref:x", 400, "proof of possession"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			status, body := fulcioAsk(t, srv.Fulcio.URL, tc.token, key, tc.challenge)
			if status != tc.status || !strings.Contains(body, tc.says) {
				t.Errorf("status %d %q, want %d saying %q", status, body, tc.status, tc.says)
			}
		})
	}
	if n := len(srv.Fulcio.Issued()); n != 0 {
		t.Errorf("%d certificates issued on refused requests", n)
	}
}

func TestFulcioEmailIdentity(t *testing.T) {
	ss, err := New()
	if err != nil {
		t.Fatal(err)
	}
	srv := StartServers(t, ss)
	c := EmailClaims("dev@example.com", GoogleIssuer)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if status, body := fulcioAsk(t, srv.Fulcio.URL, srv.Token(t, c), key, c.Email); status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	leaf := srv.Fulcio.Issued()[0]
	ext, _ := certificate.ParseExtensions(leaf.Extensions)
	if len(leaf.EmailAddresses) != 1 || leaf.EmailAddresses[0] != c.Email || ext.Issuer != GoogleIssuer {
		t.Errorf("e-mail SAN %v issuer %q", leaf.EmailAddresses, ext.Issuer)
	}
}

// The audit paths of the test log are RFC 6962's: every leaf of trees of
// 1 to 17 leaves verifies with transparency-dev's verifier.
func TestRekorMerkleProofs(t *testing.T) {
	h := rfc6962.DefaultHasher
	var leaves [][]byte
	for n := 1; n <= 17; n++ {
		leaves = append(leaves, rfc6962Leaf([]byte(fmt.Sprintf("entry %d", n))))
		root := rfc6962Root(leaves)
		for i := range leaves {
			if err := proof.VerifyInclusion(h, uint64(i), uint64(n), leaves[i], rfc6962Path(i, leaves), root); err != nil {
				t.Fatalf("leaf %d of %d: %v", i, n, err)
			}
		}
	}
	if got, want := rfc6962Leaf([]byte("x")), h.HashLeaf([]byte("x")); !bytes.Equal(got, want) {
		t.Errorf("leaf hash %x, want %x", got, want)
	}
}

func verifyOpts(ss *Sigstore) x509.VerifyOptions {
	roots, inter := x509.NewCertPool(), x509.NewCertPool()
	roots.AddCert(ss.Root)
	inter.AddCert(ss.Intermediate)
	return x509.VerifyOptions{Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}}
}
