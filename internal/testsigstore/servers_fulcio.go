package testsigstore

import (
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// Fulcio is a loopback Fulcio serving POST /api/v2/signingCert (what
// sigstore-go and cosign --new-bundle-format call) and POST
// /api/v1/signingCert (cosign's classic keyless path). It verifies the
// identity token (see verifyToken) and the proof of possession, and issues
// a leaf of the Sigstore's CA with the identity's extensions and an
// embedded SCT, valid ten minutes, as Fulcio v1.8 does.
type Fulcio struct {
	URL string

	ss      *Sigstore
	issuers map[string]crypto.PublicKey
	now     func() time.Time

	mu     sync.Mutex
	issued []*x509.Certificate
}

// NewFulcio starts a test Fulcio for the life of t, issuing from ss's CA
// for tokens of the issuers (names mapped to their token keys).
func NewFulcio(t testing.TB, ss *Sigstore, issuers map[string]crypto.PublicKey) *Fulcio {
	t.Helper()
	f := &Fulcio{ss: ss, issuers: issuers, now: time.Now}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v2/signingCert", f.signingCertV2)
	mux.HandleFunc("POST /api/v1/signingCert", f.signingCertV1)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Issued lists the certificates handed out so far.
func (f *Fulcio) Issued() []*x509.Certificate {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*x509.Certificate(nil), f.issued...)
}

type fulcioRequest struct {
	PublicKeyRequest struct {
		PublicKey struct {
			Algorithm string `json:"algorithm"`
			Content   string `json:"content"`
		} `json:"publicKey"`
		ProofOfPossession string `json:"proofOfPossession"`
	} `json:"publicKeyRequest"`
}

func (f *Fulcio) signingCertV2(w http.ResponseWriter, r *http.Request) {
	var req fulcioRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, "request: "+err.Error(), http.StatusBadRequest)
		return
	}
	chain, status, err := f.certify(r, req.PublicKeyRequest.PublicKey.Content, req.PublicKeyRequest.ProofOfPossession)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	var pems []string
	for _, c := range chain {
		pems = append(pems, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})))
	}
	// v2 answers 200 (gRPC gateway), v1 201, as Fulcio v1.8 does.
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"signedCertificateEmbeddedSct": map[string]any{"chain": map[string]any{"certificates": pems}},
	})
}

// signingCertV1 is Fulcio's legacy API: {publicKey: {algorithm, content
// (base64 of the PEM or DER key)}, signedEmailAddress (base64 signature)}
// in, the PEM chain out.
func (f *Fulcio) signingCertV1(w http.ResponseWriter, r *http.Request) {
	var req struct {
		PublicKey struct {
			Content []byte `json:"content"`
		} `json:"publicKey"`
		SignedEmailAddress string `json:"signedEmailAddress"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, "request: "+err.Error(), http.StatusBadRequest)
		return
	}
	keyPEM := req.PublicKey.Content // PEM, as cosign sends it, or DER
	if block, _ := pem.Decode(keyPEM); block == nil {
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: req.PublicKey.Content})
	}
	chain, status, err := f.certify(r, string(keyPEM), req.SignedEmailAddress)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "application/pem-certificate-chain")
	w.WriteHeader(http.StatusCreated)
	for _, c := range chain {
		_ = pem.Encode(w, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
}

// certify checks the bearer token and the proof of possession and returns
// the leaf and its chain (intermediate, root), or an HTTP status and why.
func (f *Fulcio) certify(r *http.Request, keyPEM, proof string) ([]*x509.Certificate, int, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, http.StatusUnauthorized, errors.New("no bearer token")
	}
	claims, err := verifyToken(tok, f.issuers, f.now())
	if err != nil {
		return nil, http.StatusUnauthorized, err
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey([]byte(keyPEM))
	if err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("public key: %w", err)
	}
	// Proof of possession: the key signed the token's subject (the
	// e-mail address when there is one), as Fulcio requires.
	challenge := claims.Subject
	if claims.Email != "" {
		challenge = claims.Email
	}
	if err := proveKey(pub, challenge, proof); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("proof of possession: %w", err)
	}
	id, err := fulcioIdentity(claims)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	leaf, err := f.ss.LeafFor(id, pub, f.now(), CertOptions{})
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	f.mu.Lock()
	f.issued = append(f.issued, leaf)
	f.mu.Unlock()
	return []*x509.Certificate{leaf, f.ss.Intermediate, f.ss.Root}, 0, nil
}

func proveKey(pub crypto.PublicKey, challenge, sigB64 string) error {
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		return err
	}
	v, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return err
	}
	return v.VerifySignature(strings.NewReader(string(sig)), strings.NewReader(challenge))
}

// fulcioIdentity is the identity Fulcio derives from verified claims:
// for a GitHub Actions token the job workflow as SAN URI and every claim
// of Fulcio's GitHub mapping as an extension; otherwise the e-mail
// address, and the issuer alone.
func fulcioIdentity(c *Claims) (Identity, error) {
	if c.JobWorkflowRef == "" {
		if c.Email == "" {
			return Identity{}, fmt.Errorf("token of %s names no e-mail address and no GitHub workflow", c.Issuer)
		}
		return Email(c.Email, c.Issuer), nil
	}
	const gh = "https://github.com/"
	return Identity{
		URI: gh + c.JobWorkflowRef,
		Extensions: certificate.Extensions{
			Issuer:                              c.Issuer,
			GithubWorkflowTrigger:               c.EventName,
			GithubWorkflowSHA:                   c.SHA,
			GithubWorkflowName:                  c.Workflow,
			GithubWorkflowRepository:            c.Repository,
			GithubWorkflowRef:                   c.Ref,
			BuildSignerURI:                      gh + c.JobWorkflowRef,
			BuildSignerDigest:                   c.JobWorkflowSHA,
			RunnerEnvironment:                   c.RunnerEnvironment,
			SourceRepositoryURI:                 gh + c.Repository,
			SourceRepositoryDigest:              c.SHA,
			SourceRepositoryRef:                 c.Ref,
			SourceRepositoryIdentifier:          c.RepositoryID,
			SourceRepositoryOwnerURI:            gh + c.RepositoryOwner,
			SourceRepositoryOwnerIdentifier:     c.RepositoryOwnerID,
			BuildConfigURI:                      gh + c.WorkflowRef,
			BuildConfigDigest:                   c.WorkflowSHA,
			BuildTrigger:                        c.EventName,
			RunInvocationURI:                    gh + c.Repository + "/actions/runs/" + c.RunID + "/attempts/" + c.RunAttempt,
			SourceRepositoryVisibilityAtSigning: c.RepositoryVisibility,
		},
	}, nil
}
