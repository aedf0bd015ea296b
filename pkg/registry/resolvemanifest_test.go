package registry

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// TestResolveManifest: one GET resolves the reference and returns the
// manifest bytes, which always match the descriptor; pinned digests are
// enforced, substitutions and oversized manifests refused.
func TestResolveManifest(t *testing.T) {
	a := buildArtifact(t, "a", "x")
	other := buildArtifact(t, "b", "x") // same size, different content
	substitute := fault(http.MethodGet, "/v2/org/addon/manifests/"+a.root.Digest.String(), func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
		w.Write(other.manifest)
	})
	tests := []struct {
		name    string
		wrap    func(http.Handler) http.Handler
		opts    Options
		ref     func(Reference) Reference
		wantErr error
	}{
		{name: "tag", ref: func(r Reference) Reference { return r }},
		{name: "digest", ref: func(r Reference) Reference { r.Tag = ""; return r.WithDigest(a.root.Digest) }},
		{name: "tag and matching digest", ref: func(r Reference) Reference { r.Digest = a.root.Digest; return r }},
		{name: "tag pinned to another digest", ref: func(r Reference) Reference { r.Digest = other.root.Digest; return r }, wantErr: errdef.ErrDigestMismatch},
		{name: "missing tag", ref: func(r Reference) Reference { r.Tag = "no-such-tag"; return r }, wantErr: ErrNotFound},
		{name: "substituted by digest", wrap: substitute, ref: func(r Reference) Reference { r.Tag = ""; return r.WithDigest(a.root.Digest) }, wantErr: errdef.ErrDigestMismatch},
		{name: "over MaxManifestSize", opts: Options{MaxManifestSize: a.root.Size - 1}, ref: func(r Reference) Reference { return r }, wantErr: ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			wrap := rec.wrap
			if tt.wrap != nil {
				wrap = func(next http.Handler) http.Handler { return rec.wrap(tt.wrap(next)) }
			}
			c, base := pushed(t, a, wrap, tt.opts)
			ref := tt.ref(base)
			rec.take()
			d, body, err := c.ResolveManifest(t.Context(), ref)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), ref.String()) {
					t.Fatalf("ResolveManifest(%s) = %v, want %v naming the reference", ref, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ResolveManifest(%s): %v", ref, err)
			}
			if d.Digest != a.root.Digest || d.Size != a.root.Size || d.MediaType != a.root.MediaType || !bytes.Equal(body, a.manifest) {
				t.Fatalf("ResolveManifest = %+v (%d bytes), want %+v", d, len(body), a.root)
			}
			if reqs := rec.take(); len(reqs) != 1 || !strings.HasPrefix(reqs[0], "GET /v2/org/addon/manifests/") {
				t.Fatalf("requests %q, want one manifest GET", reqs)
			}
		})
	}
}
