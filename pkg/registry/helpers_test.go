package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
)

// newRegistryHandler returns a quiet in-memory go-containerregistry registry.
func newRegistryHandler() http.Handler {
	return ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0)))
}

// startRegistry serves the registry (wrapped by wrap, if not nil) on
// loopback over plain HTTP and returns the "127.0.0.1:port" host.
func startRegistry(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	h := newRegistryHandler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// newTestClient returns a Client that never reads the user's docker config.
func newTestClient(t *testing.T, opts Options) *Client {
	t.Helper()
	if opts.Credential == nil && opts.DockerConfig == "" {
		opts.DockerConfig = t.TempDir() + "/config.json" // absent: no credentials
	}
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func mustParse(t *testing.T, s string) Reference {
	t.Helper()
	r, err := ParseReference(s)
	if err != nil {
		t.Fatalf("ParseReference(%q): %v", s, err)
	}
	return r
}

// artifact is a small OCI image manifest with a config blob and layers,
// stored in an oras memory store.
type artifact struct {
	store    *memory.Store
	root     ocispec.Descriptor
	manifest []byte
	config   ocispec.Descriptor
	layers   []ocispec.Descriptor
	blobs    map[digest.Digest][]byte
}

func buildArtifact(t *testing.T, annotation string, layers ...string) *artifact {
	t.Helper()
	ctx := context.Background()
	a := &artifact{store: memory.New(), blobs: map[digest.Digest][]byte{}}
	push := func(mediaType string, b []byte) ocispec.Descriptor {
		d := content.NewDescriptorFromBytes(mediaType, b)
		if err := a.store.Push(ctx, d, bytes.NewReader(b)); err != nil {
			t.Fatalf("push to memory store: %v", err)
		}
		a.blobs[d.Digest] = b
		return d
	}
	a.config = push("application/vnd.addonpack.config.v1+json", []byte(`{"name":"demo","version":"1.0.0"}`))
	for _, l := range layers {
		a.layers = append(a.layers, push("application/vnd.addonpack.layer.v1.tar", []byte(l)))
	}
	m := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: "application/vnd.addonpack.addon.v1",
		Config:       a.config,
		Layers:       a.layers,
		Annotations:  map[string]string{"test": annotation},
	}
	mb, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	a.manifest = mb
	a.root = push(ocispec.MediaTypeImageManifest, mb)
	return a
}

// recorder logs "METHOD /path" of every request and the User-Agent seen.
type recorder struct {
	mu    sync.Mutex
	reqs  []string
	agent map[string]bool
}

func (r *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Method+" "+req.URL.Path)
		if r.agent == nil {
			r.agent = map[string]bool{}
		}
		r.agent[req.UserAgent()] = true
		r.mu.Unlock()
		next.ServeHTTP(w, req)
	})
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
