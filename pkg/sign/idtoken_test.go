package sign_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/sign"
)

// actionsRuntime answers ID token requests the way GitHub's does: the
// bearer request token, the audience as a query parameter.
func actionsRuntime(t *testing.T, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") != "Bearer request-token":
			http.Error(w, "bad bearer", http.StatusUnauthorized)
		case r.URL.Query().Get("audience") != sign.SigstoreAudience || r.URL.Query().Get("api-version") != "2.0":
			http.Error(w, "bad query "+r.URL.RawQuery, http.StatusBadRequest)
		case status != http.StatusOK:
			http.Error(w, "no", status)
		default:
			_, _ = w.Write([]byte(`{"count":1,"value":"` + ambientToken + `"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/_apis/token?api-version=2.0"
}

// jwt is an unsigned JWT with the given payload (the signature is
// Fulcio's to check).
func jwt(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(payload)) + ".c2ln"
}

var (
	literalToken = jwt(`{"iss":"https://issuer.example","sub":"literal"}`)
	fileToken    = jwt(`{"iss":"https://issuer.example","email":"file@example.com"}`)
	ambientToken = jwt(`{"iss":"https://token.actions.githubusercontent.com","sub":"repo:o/r:ref:refs/tags/v1"}`)
)

func TestIdentityToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte(fileToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	actions := func(url, tok string) func(string) string {
		return env(map[string]string{sign.EnvActionsTokenURL: url, sign.EnvActionsTokenToken: tok})
	}
	for _, tc := range []struct {
		name, arg string
		getenv    func(string) string
		want      string
		says      string
	}{
		{"literal token", literalToken, env(nil), literalToken, ""},
		{"token file", "@" + file, env(nil), fileToken, ""},
		{"literal wins over the ambient token", literalToken, actions("http://127.0.0.1:1", "x"), literalToken, ""},
		{"GitHub Actions ambient token", "", actions(actionsRuntime(t, 200), "request-token"), ambientToken, ""},
		// Malformed tokens are refused before Fulcio is contacted.
		{"not a JWT", "abc", env(nil), "", "not a JWT: 1 dot-separated parts"},
		{"payload not base64url", "a.!!.c", env(nil), "", "payload is not base64url"},
		{"payload not JSON", "a." + base64.RawURLEncoding.EncodeToString([]byte("x")) + ".c", env(nil), "", "payload is not a JSON object"},
		{"no issuer", jwt(`{"sub":"s"}`), env(nil), "", "names no issuer"},
		{"no subject", jwt(`{"iss":"https://i"}`), env(nil), "", "no subject"},
		{"no token anywhere", "", env(nil), "", "id-token: write"},
		{"missing file", "@" + filepath.Join(dir, "nope"), env(nil), "", "no such file"},
		{"empty file", "@" + empty, env(nil), "", "is empty"},
		{"runtime refuses", "", actions(actionsRuntime(t, 403), "request-token"), "", "HTTP 403"},
		{"wrong request token", "", actions(actionsRuntime(t, 200), "other"), "", "HTTP 401"},
		{"not a URL", "", actions("file:///etc/passwd", "x"), "", "not an http(s) URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sign.IdentityToken(context.Background(), tc.arg, tc.getenv)
			if tc.says != "" {
				if err == nil || !strings.Contains(err.Error(), tc.says) || !errors.Is(err, sign.ErrSign) || strings.Contains(err.Error(), sign.DefaultFulcioURL) {
					t.Fatalf("got %q, %v; want an error saying %q", got, err, tc.says)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
