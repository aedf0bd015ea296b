package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
)

// TestDelete maps the registries' answers to DELETE: accepted, refused as
// unsupported (405, UNSUPPORTED, distribution 2.8's DIGEST_INVALID for a
// tag), missing, unauthorized.
func TestDelete(t *testing.T) {
	const d = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
	errBody := func(code string) string { return fmt.Sprintf(`{"errors":[{"code":%q,"message":"x"}]}`, code) }
	for _, tc := range []struct {
		name   string
		ref    string
		status int
		body   string
		want   error
	}{
		{"digest accepted", "/r@" + d, http.StatusAccepted, "", nil},
		{"tag accepted", "/r:v1", http.StatusAccepted, "", nil},
		{"disabled 405", "/r@" + d, http.StatusMethodNotAllowed, errBody("UNSUPPORTED"), ErrDeleteUnsupported},
		{"unsupported code", "/r@" + d, http.StatusBadRequest, errBody("UNSUPPORTED"), ErrDeleteUnsupported},
		{"tag by digest only", "/r:v1", http.StatusBadRequest, errBody("DIGEST_INVALID"), ErrDeleteUnsupported},
		{"missing", "/r@" + d, http.StatusNotFound, errBody("MANIFEST_UNKNOWN"), ErrNotFound},
		{"denied", "/r@" + d, http.StatusForbidden, errBody("DENIED"), ErrUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			host := startRegistry(t, func(http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodDelete {
						got = r.URL.Path
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tc.status)
					w.Write([]byte(tc.body))
				})
			})
			c := newTestClient(t, Options{})
			err := c.Delete(context.Background(), mustParse(t, host+tc.ref))
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			target := "v1"
			if tc.ref != "/r:v1" {
				target = d
			}
			if got != "/v2/r/manifests/"+target {
				t.Errorf("DELETE %q, want /v2/r/manifests/%s", got, target)
			}
		})
	}
	c := newTestClient(t, Options{})
	if err := c.Delete(context.Background(), mustParse(t, "127.0.0.1:1/r")); !errors.Is(err, ErrInvalidReference) {
		t.Errorf("no tag or digest: err = %v, want ErrInvalidReference", err)
	}
}
