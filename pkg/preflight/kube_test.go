package preflight

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestKubeOversizedAnswer: an API server (or something in its place) that
// answers with more than maxResponse bytes is refused by name, whatever the
// bytes would have decoded to, and an answer of exactly the bound is read.
func TestKubeOversizedAnswer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    int
		wantErr string
	}{
		{"at the bound", maxResponse, ""},
		{"one byte over", maxResponse + 1, "the answer is larger than 32 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"gitVersion":"v1.34.4"}`
			body += strings.Repeat(" ", tc.size-len(body))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			base, err := url.Parse(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			k := &Kube{hc: srv.Client(), base: base}
			v, err := k.ServerVersion(context.Background())
			if tc.wantErr == "" {
				if err != nil || v != "v1.34.4" {
					t.Fatalf("got %q, %v", v, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrUnreachable) {
				t.Fatalf("got %q, %v; want an ErrUnreachable naming the size", v, err)
			}
		})
	}
}
