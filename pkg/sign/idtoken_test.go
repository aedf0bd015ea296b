package sign_test

import (
	"context"
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
			_, _ = w.Write([]byte(`{"count":1,"value":"eyJ.ambient.token"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/_apis/token?api-version=2.0"
}

func TestIdentityToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("eyJ.from.file\n"), 0o600); err != nil {
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
		{"literal token", "eyJ.literal", env(nil), "eyJ.literal", ""},
		{"token file", "@" + file, env(nil), "eyJ.from.file", ""},
		{"literal wins over the ambient token", "eyJ.literal", actions("http://127.0.0.1:1", "x"), "eyJ.literal", ""},
		{"GitHub Actions ambient token", "", actions(actionsRuntime(t, 200), "request-token"), "eyJ.ambient.token", ""},
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
				if err == nil || !strings.Contains(err.Error(), tc.says) {
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
