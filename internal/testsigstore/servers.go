package testsigstore

import (
	"crypto"
	"testing"
)

// Servers are a test Sigstore's public services on loopback, for signing
// clients (addonpack --keyless, the cosign CLI): an OIDC issuer whose
// tokens the Fulcio accepts under the names GitHubActionsIssuer and
// GoogleIssuer, the Fulcio, a Rekor v1 log and an RFC 3161 TSA, all on ss's
// keys, so that what they produce verifies against ss's trusted root.
type Servers struct {
	Issuer *OIDCIssuer
	Fulcio *Fulcio
	Rekor  *Rekor
	TSA    *TSA

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
		Issuer: iss,
		Fulcio: NewFulcio(t, ss, trusted),
		Rekor:  NewRekor(t, ss),
		TSA:    NewTSA(t, ss),
		ss:     ss,
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
