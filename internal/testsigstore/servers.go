package testsigstore

import (
	"crypto"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// Servers are a test Sigstore's public services on loopback, for signing
// clients (addonpack --keyless, the cosign CLI): an OIDC issuer whose
// tokens the Fulcio accepts under the names GitHubActionsIssuer and
// GoogleIssuer, the Fulcio, a Rekor v1 log, a Rekor v2 log and an RFC
// 3161 TSA, all on ss's keys, so that what they produce verifies against
// ss's trusted root (with RootOptions.RekorV2 for the v2 log's entries).
type Servers struct {
	Issuer  *OIDCIssuer
	Fulcio  *Fulcio
	Rekor   *Rekor
	RekorV2 *RekorV2
	TSA     *TSA

	ss *Sigstore
}

// StartServers starts the servers for the life of t.
func StartServers(t testing.TB, ss *Sigstore) *Servers {
	t.Helper()
	iss, err := NewOIDCIssuer()
	if err != nil {
		t.Fatalf("test OIDC issuer: %v", err)
	}
	trusted := map[string]crypto.PublicKey{GitHubActionsIssuer: iss.PublicKey(), GoogleIssuer: iss.PublicKey()}
	return &Servers{
		Issuer:  iss,
		Fulcio:  NewFulcio(t, ss, trusted),
		Rekor:   NewRekor(t, ss),
		RekorV2: NewRekorV2(t, ss),
		TSA:     NewTSA(t, ss),
		ss:      ss,
	}
}

// Token returns a signed ID token with claims c (see GitHubWorkflow.Claims
// and EmailClaims).
func (s *Servers) Token(t testing.TB, c Claims) string {
	t.Helper()
	tok, err := s.Issuer.Token(c)
	if err != nil {
		t.Fatalf("test ID token: %v", err)
	}
	return tok
}

// NewTrustedRootJSON returns the full trusted root (CA, Rekor log, CT log,
// TSA) of a new Sigstore, for tests that need a valid trusted_root.json and
// none of its signers.
func NewTrustedRootJSON(t testing.TB) []byte {
	t.Helper()
	ss, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b, err := ss.TrustedRootJSON(RootOptions{})
	if err != nil {
		t.Fatalf("trusted root: %v", err)
	}
	return b
}

// TrustedRootFile writes the Sigstore's full trusted root (CA, Rekor v1
// and v2 logs, CT log, TSA) to a trusted_root.json in a temporary
// directory of t and returns its path.
func (s *Servers) TrustedRootFile(t testing.TB) string {
	t.Helper()
	b, err := s.ss.TrustedRootJSON(RootOptions{RekorV2: true})
	if err != nil {
		t.Fatalf("trusted root: %v", err)
	}
	p := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ActionsTokenEnv starts a stand-in for the GitHub Actions ID token
// endpoint for the life of t and returns the two variables a job with
// permissions id-token: write sees. Like GitHub's, it answers only the
// request token it gave and the audience asked for ("sigstore"), with a
// token of the test issuer carrying claims.
func (s *Servers) ActionsTokenEnv(t testing.TB, claims Claims) map[string]string {
	t.Helper()
	tok, err := s.Issuer.Token(claims)
	if err != nil {
		t.Fatalf("test ID token: %v", err)
	}
	const requestToken = "actions-runtime-request-token"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+requestToken || r.URL.Query().Get("audience") != "sigstore" {
			http.Error(w, "refused", http.StatusForbidden)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"count": 1, "value": tok})
	}))
	t.Cleanup(srv.Close)
	return map[string]string{
		"ACTIONS_ID_TOKEN_REQUEST_URL":   srv.URL + "/_apis/token?api-version=2.0",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": requestToken,
	}
}
