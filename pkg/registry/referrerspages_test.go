package registry

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// TestReferrersPagesBounded: a registry whose referrers listing never ends
// (each page, empty or repeating the same referrer, links to another) is
// read for MaxReferrerPages pages, then refused with ErrTooLarge.
func TestReferrersPagesBounded(t *testing.T) {
	for _, tt := range []struct {
		name, manifests string
		max             int
	}{
		{"empty pages", ``, 0},
		{"empty pages, capped caller", ``, 10},
		{"the same referrer on every page", `{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:` + strings.Repeat("a", 64) + `","size":2}`, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := buildArtifact(t, "pages", "x")
			var pages atomic.Int64
			path := "/v2/org/addon/referrers/" + a.root.Digest.String()
			c, ref := pushed(t, a, fault(http.MethodGet, path, func(w http.ResponseWriter, r *http.Request) {
				n := pages.Add(1)
				w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
				w.Header().Set("Link", fmt.Sprintf(`<%s?last=%d>; rel="next"`, path, n))
				fmt.Fprintf(w, `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s]}`, tt.manifests)
			}), Options{})
			_, _, err := c.Referrers(t.Context(), ref, a.root, "", tt.max)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "pages of referrers") || !strings.Contains(err.Error(), a.root.Digest.String()) {
				t.Fatalf("err = %v, want ErrTooLarge naming the pages and the subject", err)
			}
			if got := pages.Load(); got != MaxReferrerPages {
				t.Errorf("read %d pages, want %d", got, MaxReferrerPages)
			}
		})
	}
}
