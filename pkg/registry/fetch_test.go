package registry

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// fault replaces the response to "METHOD path" with fn; other requests go
// to the registry.
func fault(method, path string, fn http.HandlerFunc) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == method && r.URL.Path == path {
				fn(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// pushed starts a registry wrapped by wrap, pushes a to it (through the
// fault-free handler path) and returns a client and the reference.
func pushed(t *testing.T, a *artifact, wrap func(http.Handler) http.Handler, opts Options) (*Client, Reference) {
	t.Helper()
	var faulty atomic.Bool
	host := startRegistry(t, func(next http.Handler) http.Handler {
		wrapped := next
		if wrap != nil {
			wrapped = wrap(next)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if faulty.Load() {
				wrapped.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	ref := mustParse(t, host+"/org/addon:v1")
	if _, err := newTestClient(t, Options{}).Push(t.Context(), a.store, a.root, ref); err != nil {
		t.Fatalf("Push: %v", err)
	}
	faulty.Store(true)
	return newTestClient(t, opts), ref
}

func TestFetchBlobIntegrity(t *testing.T) {
	a := buildArtifact(t, "a", "the layer content")
	layer := a.layers[0]
	good := a.blobs[layer.Digest]
	path := "/v2/org/addon/blobs/" + layer.Digest.String()
	serve := func(body []byte, flush bool, header map[string]string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for k, v := range header {
				w.Header().Set(k, v)
			}
			if flush { // no Content-Length: chunked encoding
				w.(http.Flusher).Flush()
			}
			w.Write(body)
		}
	}
	wrongBytes := bytes.ToUpper(good)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    error
	}{
		{"wrong bytes", serve(wrongBytes, false, nil), errdef.ErrDigestMismatch},
		{"wrong bytes chunked", serve(wrongBytes, true, nil), errdef.ErrDigestMismatch},
		{"wrong digest header", serve(good, false, map[string]string{"Docker-Content-Digest": a.config.Digest.String()}), errdef.ErrDigestMismatch},
		{"one extra byte", serve(append(bytes.Clone(good), 'x'), false, nil), errdef.ErrSizeMismatch},
		{"one extra byte chunked", serve(append(bytes.Clone(good), 'x'), true, nil), errdef.ErrSizeMismatch},
		{"one byte fewer", serve(good[:len(good)-1], false, nil), errdef.ErrSizeMismatch},
		{"one byte fewer chunked", serve(good[:len(good)-1], true, nil), errdef.ErrSizeMismatch},
		{"truncated with full Content-Length", serve(good[:len(good)-1], false, map[string]string{"Content-Length": strconv.Itoa(len(good))}), errdef.ErrSizeMismatch},
		{"not found", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, ErrNotFound},
		{"forbidden", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }, ErrUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ref := pushed(t, a, fault(http.MethodGet, path, tt.handler), Options{})
			var buf bytes.Buffer
			err := c.FetchBlob(t.Context(), ref, layer, &buf)
			if !errors.Is(err, tt.want) {
				t.Fatalf("FetchBlob: %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), layer.Digest.String()) {
				t.Errorf("error %q does not name the digest", err)
			}
			if int64(buf.Len()) > layer.Size {
				t.Errorf("wrote %d bytes, more than desc.Size %d", buf.Len(), layer.Size)
			}
			if _, err := c.FetchBlobBytes(t.Context(), ref, layer, 1<<20); !errors.Is(err, tt.want) {
				t.Errorf("FetchBlobBytes: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestFetchManifestIntegrity(t *testing.T) {
	a := buildArtifact(t, "a", "x")
	b := buildArtifact(t, "b", "x") // same size, different content
	if a.root.Size != b.root.Size || a.root.Digest == b.root.Digest {
		t.Fatal("test artifacts must differ in content only")
	}
	path := "/v2/org/addon/manifests/" + a.root.Digest.String()
	substitute := fault(http.MethodGet, path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
		w.Write(b.manifest)
	})
	c, ref := pushed(t, a, substitute, Options{})
	if _, err := c.FetchManifest(t.Context(), ref, a.root); !errors.Is(err, errdef.ErrDigestMismatch) {
		t.Fatalf("FetchManifest of substituted manifest: %v, want errdef.ErrDigestMismatch", err)
	}

	small, ref := pushed(t, a, nil, Options{MaxManifestSize: a.root.Size - 1})
	_, err := small.FetchManifest(t.Context(), ref, a.root)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("FetchManifest over MaxManifestSize: %v, want ErrTooLarge", err)
	}
	if _, err := small.FetchBlobBytes(t.Context(), ref, a.config, a.config.Size-1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("FetchBlobBytes over max: %v, want ErrTooLarge", err)
	}
	// A lying descriptor size is caught too.
	c2, ref := pushed(t, a, nil, Options{})
	lying := a.root
	lying.Size--
	if _, err := c2.FetchManifest(t.Context(), ref, lying); !errors.Is(err, errdef.ErrSizeMismatch) {
		t.Fatalf("FetchManifest with wrong size: %v, want errdef.ErrSizeMismatch", err)
	}
}

func TestResolveErrors(t *testing.T) {
	a := buildArtifact(t, "a", "x")
	other := buildArtifact(t, "b", "x")
	c, ref := pushed(t, a, nil, Options{})

	missing := mustParse(t, ref.Repo()+":no-such-tag")
	_, err := c.Resolve(t.Context(), missing)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), missing.String()) {
		t.Fatalf("Resolve missing tag: %v, want ErrNotFound naming %s", err, missing)
	}
	if _, err := c.Resolve(t.Context(), mustParse(t, "127.0.0.1:1/x/none:v1")); err == nil {
		t.Fatal("Resolve on port 1 succeeded")
	}
	if _, err := c.Resolve(t.Context(), ref.WithDigest(other.root.Digest)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resolve missing digest: %v, want ErrNotFound", err)
	}
	pinned := ref
	pinned.Digest = other.root.Digest
	if _, err := c.Resolve(t.Context(), pinned); !errors.Is(err, errdef.ErrDigestMismatch) {
		t.Fatalf("Resolve tag pinned to another digest: %v, want errdef.ErrDigestMismatch", err)
	}
}

func TestResolveFallsBackToGET(t *testing.T) {
	a := buildArtifact(t, "a", "x")
	var heads, gets atomic.Int32
	noHead := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/manifests/") {
				switch r.Method {
				case http.MethodHead:
					heads.Add(1)
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				case http.MethodGet:
					gets.Add(1)
					w.Header().Del("Docker-Content-Digest")
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	c, ref := pushed(t, a, noHead, Options{})
	d, err := c.Resolve(t.Context(), ref)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if d.Digest != a.root.Digest || d.Size != a.root.Size || d.MediaType != a.root.MediaType {
		t.Fatalf("Resolve = %+v, want %+v", d, a.root)
	}
	if heads.Load() != 1 || gets.Load() != 1 {
		t.Fatalf("HEADs=%d GETs=%d, want 1 each", heads.Load(), gets.Load())
	}
	small, ref := pushed(t, a, noHead, Options{MaxManifestSize: a.root.Size - 1})
	if _, err := small.Resolve(t.Context(), ref); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Resolve by GET over MaxManifestSize: %v, want ErrTooLarge", err)
	}
}

// closedHost returns a loopback "127.0.0.1:port" where nothing listens.
func closedHost(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close() // nothing listens there any more
	return host
}

func TestUnreachable(t *testing.T) {
	host := closedHost(t)
	a := buildArtifact(t, "a", "x")
	ref := mustParse(t, host+"/addon:v1")
	for name, opts := range map[string]Options{"probe": {}, "plain": {PlainHTTP: true}} {
		t.Run(name, func(t *testing.T) {
			c := newTestClient(t, opts)
			_, err := c.Resolve(t.Context(), ref)
			if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), host) {
				t.Fatalf("Resolve: %v, want ErrUnreachable naming %s", err, host)
			}
			if _, err := c.Push(t.Context(), a.store, a.root, ref); !errors.Is(err, ErrUnreachable) {
				t.Fatalf("Push: %v, want ErrUnreachable", err)
			}
			if err := c.FetchBlob(t.Context(), ref, a.layers[0], &bytes.Buffer{}); !errors.Is(err, ErrUnreachable) {
				t.Fatalf("FetchBlob: %v, want ErrUnreachable", err)
			}
		})
	}
}

func TestFetchBlobRetries503(t *testing.T) {
	a := buildArtifact(t, "a", "retry me")
	layer := a.layers[0]
	var calls atomic.Int32
	flaky := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/v2/org/addon/blobs/"+layer.Digest.String() {
				if calls.Add(1) == 1 {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	c, ref := pushed(t, a, flaky, Options{})
	var buf bytes.Buffer
	if err := c.FetchBlob(t.Context(), ref, layer, &buf); err != nil {
		t.Fatalf("FetchBlob after one 503: %v", err)
	}
	if !bytes.Equal(buf.Bytes(), a.blobs[layer.Digest]) {
		t.Fatalf("FetchBlob = %q", buf.Bytes())
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("%d GETs, want 2 (one retry)", n)
	}
}

func TestFetchBlobConcurrencyLimit(t *testing.T) {
	const limit = 2
	a := buildArtifact(t, "a", "1", "2", "3", "4", "5", "6")
	var inFlight, peak atomic.Int32
	slow := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(30 * time.Millisecond)
			}
			next.ServeHTTP(w, r)
		})
	}
	c, ref := pushed(t, a, slow, Options{Concurrency: limit})
	var wg sync.WaitGroup
	for _, l := range a.layers {
		wg.Go(func() {
			if _, err := c.FetchBlobBytes(t.Context(), ref, l, 1024); err != nil {
				t.Errorf("FetchBlobBytes: %v", err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p < 1 || p > limit {
		t.Fatalf("peak concurrent downloads = %d, want 1..%d", p, limit)
	}
}
