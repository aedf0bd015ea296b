package mirror_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/mirror"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

// destination is a registry a mirror writes to, behind a proxy that counts
// every write (PUT, POST, PATCH, DELETE) and can be told to fail every
// write after the next n: a registry that goes away in the middle of a run.
type destination struct {
	host   string // the proxy's host:port
	writes atomic.Int64
	budget atomic.Int64 // writes left before failing; <0: unlimited
	mu     sync.Mutex
	log    []string // writes, "METHOD PATH"
	// embedded is the embedded registry behind the proxy (nil for
	// distribution), whose own request log is checked too.
	embedded *testregistry.Registry
}

func isWrite(method string) bool {
	return method == http.MethodPut || method == http.MethodPost || method == http.MethodPatch || method == http.MethodDelete
}

// kinds are the two registries of realregistry.Both, each behind a counting
// proxy: the embedded one (referrers API) and distribution 2.8 (none).
var kinds = []struct {
	name  string
	start func(t *testing.T) (host string, embedded *testregistry.Registry)
}{
	{"testregistry", func(t *testing.T) (string, *testregistry.Registry) {
		r := testregistry.New(t)
		return r.Host(), r
	}},
	{"distribution", func(t *testing.T) (string, *testregistry.Registry) {
		return realregistry.Start(t, realregistry.Options{}), nil
	}},
}

func newDestination(t *testing.T, backend string, embedded *testregistry.Registry) *destination {
	t.Helper()
	d := &destination{embedded: embedded}
	d.budget.Store(-1)
	u, _ := url.Parse("http://" + backend)
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isWrite(r.Method) {
			if d.budget.Load() == 0 {
				http.Error(w, `{"errors":[{"code":"UNAVAILABLE","message":"gone"}]}`, http.StatusServiceUnavailable)
				return
			}
			d.budget.Add(-1)
			d.writes.Add(1)
			d.mu.Lock()
			d.log = append(d.log, r.Method+" "+r.URL.Path)
			d.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	d.host = strings.TrimPrefix(srv.URL, "http://")
	return d
}

// embeddedWrites counts the writes in the embedded registry's own request
// log (0 for distribution, whose writes only the proxy counts).
func (d *destination) embeddedWrites() int {
	if d.embedded == nil {
		return 0
	}
	n := 0
	for _, r := range d.embedded.Log() {
		if isWrite(r.Method) {
			n++
		}
	}
	return n
}

// world is an upstream registry with signed releases of hello, the key that
// signed them (its public key file in dir) and a client.
type world struct {
	c        *registry.Client
	signer   *keys.Signer
	pub      string
	dir      string
	upstream string
}

func newWorld(t *testing.T, upstream string) *world {
	t.Helper()
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _, pub := testkey.New(t)
	return &world{c: c, signer: s, pub: pub, dir: t.TempDir(), upstream: upstream}
}

// release pushes hello at version v to repo upstream, signed and attested
// (unsigned when signed is false); extra, when set, is written into the
// package so that the same version builds to another digest.
func (w *world) release(t *testing.T, repo, v string, signed bool, extra string) testartifact.Published {
	t.Helper()
	dir := testartifact.Version(t, testartifact.ExampleDir("hello"), v)
	if extra != "" {
		if err := os.WriteFile(filepath.Join(dir, "NOTES.txt"), []byte(extra), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ref := registry.Reference{Registry: w.upstream, Repository: repo, Tag: v}
	if !signed {
		return testartifact.PushDir(t, w.c, dir, ref, build.Options{})
	}
	return testartifact.Signed(t, w.c, dir, ref, w.signer)
}

// file writes a mirror file named name into w.dir and loads it.
func (w *world) file(t *testing.T, name, body string) *mirror.Mirror {
	t.Helper()
	p := filepath.Join(w.dir, name)
	body = "apiVersion: addonpack.dev/v1alpha1\nkind: Mirror\npolicy:\n  keys: [" + w.pub + "]\n  requireProvenance: true\n" + body
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := mirror.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// resolve returns the digest ref's tag points at, "" when it has none.
func (w *world) resolve(t *testing.T, ref string) string {
	t.Helper()
	r, err := registry.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	d, err := w.c.Resolve(t.Context(), r)
	if err != nil {
		return ""
	}
	return d.Digest.String()
}
