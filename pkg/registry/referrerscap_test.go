package registry

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// TestReferrersCapabilityPerHost: a registry without the referrers API
// (distribution 2.8 answers 404) is asked for the API once per Client and
// host; later listings, in other repositories too, read the referrers tag
// schema directly. A registry with the API is never asked for the tag.
func TestReferrersCapabilityPerHost(t *testing.T) {
	for _, tc := range []struct {
		name              string
		noAPI             bool
		wantAPI, wantTags int
	}{
		{"without the API", true, 1, 3},
		{"with the API", false, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			host := startRegistry(t, func(next http.Handler) http.Handler {
				return rec.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch {
					case !strings.Contains(r.URL.Path, "/referrers/"):
						next.ServeHTTP(w, r)
					case tc.noAPI:
						http.NotFound(w, r) // distribution 2.8
					default:
						w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
						fmt.Fprint(w, `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`)
					}
				}))
			})
			a := buildArtifact(t, "subject", "layer")
			c := newTestClient(t, Options{})
			for i := range 3 {
				ref := mustParse(t, fmt.Sprintf("%s/org/addon-%d:v1", host, i))
				if _, err := c.Push(t.Context(), a.store, a.root, ref); err != nil {
					t.Fatalf("Push: %v", err)
				}
			}
			rec.take()
			for i := range 3 {
				ref := mustParse(t, fmt.Sprintf("%s/org/addon-%d", host, i))
				list, truncated, err := c.Referrers(t.Context(), ref, a.root, "", 8)
				if err != nil || truncated || len(list) != 0 {
					t.Fatalf("Referrers %s: %v %v %v", ref, list, truncated, err)
				}
			}
			tagName := "sha256-" + a.root.Digest.Encoded()
			api, tags := 0, 0
			for _, r := range rec.take() {
				switch {
				case strings.Contains(r, "/referrers/"):
					api++
				case strings.HasSuffix(r, "/manifests/"+tagName):
					tags++
				default:
					t.Errorf("unexpected request %s", r)
				}
			}
			if api != tc.wantAPI || tags != tc.wantTags {
				t.Fatalf("referrers API asked %d times, tag schema %d times; want %d and %d", api, tags, tc.wantAPI, tc.wantTags)
			}
		})
	}
}
