package registry

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/errdef"
)

func TestPushResolveFetchRoundTrip(t *testing.T) {
	rec := &recorder{}
	host := startRegistry(t, rec.wrap)
	c := newTestClient(t, Options{UserAgent: "addonpack/test"})
	ctx := t.Context()
	a := buildArtifact(t, "a", "layer one", "layer two")
	ref := mustParse(t, host+"/org/addon:v1")

	pushed, err := c.Push(ctx, a.store, a.root, ref)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	if want := host + "/org/addon@" + a.root.Digest.String(); pushed.String() != want {
		t.Fatalf("Push returned %s, want %s", pushed, want)
	}
	checkFirstPush(t, rec.take(), a)

	desc, err := c.Resolve(ctx, ref)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if desc.Digest != a.root.Digest || desc.Size != a.root.Size || desc.MediaType != a.root.MediaType {
		t.Fatalf("Resolve = %+v, want %+v", desc, a.root)
	}
	for _, r := range []Reference{pushed, ref.WithDigest(a.root.Digest), mustParse(t, ref.String()+"@"+a.root.Digest.String())} {
		if d, err := c.Resolve(ctx, r); err != nil || d.Digest != a.root.Digest {
			t.Fatalf("Resolve(%s) = %+v, %v", r, d, err)
		}
	}
	if got := rec.take(); !slices.Equal(got, []string{
		"HEAD /v2/org/addon/manifests/v1",
		"HEAD /v2/org/addon/manifests/" + a.root.Digest.String(),
		"HEAD /v2/org/addon/manifests/" + a.root.Digest.String(),
		"HEAD /v2/org/addon/manifests/v1",
	}) {
		t.Errorf("Resolve requests = %q, want one HEAD each", got)
	}

	mb, err := c.FetchManifest(ctx, ref, desc)
	if err != nil {
		t.Fatalf("FetchManifest: %v", err)
	}
	if !bytes.Equal(mb, a.manifest) {
		t.Fatalf("FetchManifest = %s, want %s", mb, a.manifest)
	}
	for _, l := range a.layers {
		var buf bytes.Buffer
		if err := c.FetchBlob(ctx, pushed, l, &buf); err != nil {
			t.Fatalf("FetchBlob %s: %v", l.Digest, err)
		}
		if !bytes.Equal(buf.Bytes(), a.blobs[l.Digest]) {
			t.Fatalf("FetchBlob %s = %q", l.Digest, buf.Bytes())
		}
	}
	cfg, err := c.FetchBlobBytes(ctx, ref, a.config, 1024)
	if err != nil || !bytes.Equal(cfg, a.blobs[a.config.Digest]) {
		t.Fatalf("FetchBlobBytes = %q, %v", cfg, err)
	}
	rec.take()

	// Second push: everything exists; nothing is uploaded, the tag is re-put.
	again, err := c.Push(ctx, a.store, a.root, ref)
	if err != nil || again != pushed {
		t.Fatalf("second Push = %s, %v", again, err)
	}
	second := rec.take()
	for _, r := range second {
		if strings.Contains(r, "/blobs/") && !strings.HasPrefix(r, "HEAD ") {
			t.Errorf("second push sent %q; want HEADs only for blobs", r)
		}
	}
	if !slices.Contains(second, "HEAD /v2/org/addon/manifests/"+a.root.Digest.String()) ||
		!slices.Contains(second, "PUT /v2/org/addon/manifests/v1") {
		t.Errorf("second push requests = %q, want an existence check and a tag PUT", second)
	}

	rec.mu.Lock()
	agents := rec.agent
	rec.mu.Unlock()
	if len(agents) != 1 || !agents["addonpack/test"] {
		t.Errorf("User-Agents seen = %v, want only addonpack/test", agents)
	}
}

// checkFirstPush asserts each blob was checked with HEAD before its upload
// and the manifest was PUT (by tag) after every blob upload.
func checkFirstPush(t *testing.T, reqs []string, a *artifact) {
	t.Helper()
	index := func(s string) int { return slices.Index(reqs, s) }
	manifestPut := index("PUT /v2/org/addon/manifests/v1")
	if manifestPut < 0 {
		t.Fatalf("no manifest PUT by tag in %q", reqs)
	}
	if slices.Contains(reqs, "PUT /v2/org/addon/manifests/"+a.root.Digest.String()) {
		t.Errorf("manifest pushed by digest as well as by tag: %q", reqs)
	}
	blobs := append(slices.Clone(a.layers), a.config)
	var puts int
	for i, r := range reqs {
		if strings.HasPrefix(r, "PUT /v2/org/addon/blobs/uploads/") {
			puts++
			if i > manifestPut {
				t.Errorf("blob upload %q after manifest PUT", r)
			}
		}
	}
	if puts != len(blobs) {
		t.Errorf("%d blob uploads, want %d: %q", puts, len(blobs), reqs)
	}
	for _, b := range blobs {
		if h := index("HEAD /v2/org/addon/blobs/" + b.Digest.String()); h < 0 || h > manifestPut {
			t.Errorf("blob %s not checked with HEAD before the manifest: %q", b.Digest, reqs)
		}
	}
}

func TestPushWithoutTagPushesByDigest(t *testing.T) {
	rec := &recorder{}
	host := startRegistry(t, rec.wrap)
	c := newTestClient(t, Options{})
	a := buildArtifact(t, "a", "x")
	got, err := c.Push(t.Context(), a.store, a.root, mustParse(t, host+"/addon"))
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	if got.Digest != a.root.Digest || got.Tag != "" {
		t.Fatalf("Push = %s", got)
	}
	if !slices.Contains(rec.take(), "PUT /v2/addon/manifests/"+a.root.Digest.String()) {
		t.Fatal("manifest not PUT by digest")
	}
	// A digest-pinned reference must match the root.
	other := buildArtifact(t, "b", "x")
	_, err = c.Push(t.Context(), a.store, a.root, mustParse(t, host+"/addon:v1@"+other.root.Digest.String()))
	if !errors.Is(err, errdef.ErrDigestMismatch) {
		t.Fatalf("Push with mismatching digest: %v, want errdef.ErrDigestMismatch", err)
	}
	if _, err := c.Push(t.Context(), a.store, a.root, mustParse(t, host+"/addon:v1@"+a.root.Digest.String())); err != nil {
		t.Fatalf("Push with matching digest: %v", err)
	}
}

func TestPushConcurrencyLimit(t *testing.T) {
	const limit = 2
	var inFlight, peak atomic.Int32
	host := startRegistry(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/blobs/uploads/") {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(30 * time.Millisecond)
			}
			next.ServeHTTP(w, r)
		})
	})
	c := newTestClient(t, Options{Concurrency: limit})
	a := buildArtifact(t, "a", "1", "2", "3", "4", "5", "6")
	if _, err := c.Push(t.Context(), a.store, a.root, mustParse(t, host+"/addon:v1")); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if p := peak.Load(); p > limit || p < 1 {
		t.Fatalf("peak concurrent uploads = %d, want 1..%d", p, limit)
	}
}

func TestPushManifestTooLarge(t *testing.T) {
	host := startRegistry(t, nil)
	a := buildArtifact(t, "a", "x")
	c := newTestClient(t, Options{MaxManifestSize: a.root.Size - 1})
	_, err := c.Push(t.Context(), a.store, a.root, mustParse(t, host+"/addon:v1"))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Push: %v, want ErrTooLarge", err)
	}
}
