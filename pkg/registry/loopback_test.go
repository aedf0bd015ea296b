package registry

import (
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost":             true,
		"LOCALHOST:5000":        true,
		"127.0.0.1":             true,
		"127.0.0.1:5000":        true,
		"127.1.2.3:80":          true,
		"[::1]":                 true,
		"[::1]:5000":            true,
		"::1":                   true,
		"[::ffff:127.0.0.1]:1":  true,
		"localhost.example.com": false,
		"127.0.0.1.nip.io":      false,
		"registry.example.com":  false,
		"ghcr.io:443":           false,
		"10.0.0.1:5000":         false,
		"0.0.0.0:5000":          false,
		"[::]:5000":             false,
		"localhost:":            false,
		"localhost:http":        false,
		"":                      false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// countingTransport counts requests per scheme on top of a cloned default
// transport.
type countingTransport struct {
	base  http.RoundTripper
	https atomic.Int32
	http  atomic.Int32
}

func newCountingTransport() *countingTransport {
	return &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme == "https" {
		c.https.Add(1)
	} else {
		c.http.Add(1)
	}
	return c.base.RoundTrip(r)
}

func TestLoopbackPlainHTTPProbedOnce(t *testing.T) {
	host := startRegistry(t, nil)
	ct := newCountingTransport()
	c := newTestClient(t, Options{Transport: ct})
	a := buildArtifact(t, "a", "x", "y")
	ref := mustParse(t, host+"/addon:v1")

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := c.Push(t.Context(), a.store, a.root, ref); err != nil {
				t.Errorf("Push: %v", err)
			}
		})
	}
	wg.Wait()
	if _, err := c.Resolve(t.Context(), ref); err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if n := ct.https.Load(); n != 1 {
		t.Fatalf("%d https requests, want exactly 1 probe", n)
	}
	if ct.http.Load() == 0 {
		t.Fatal("no plain HTTP requests")
	}
	// "localhost:port" is another host name: probed once on its own.
	_, port, _ := net.SplitHostPort(host)
	if _, err := c.Resolve(t.Context(), mustParse(t, "localhost:"+port+"/addon:v1")); err != nil {
		t.Fatalf("Resolve via localhost: %v", err)
	}
	if n := ct.https.Load(); n != 2 {
		t.Fatalf("%d https requests, want 2 probes", n)
	}
}

func TestLoopbackTLSWithRootCAs(t *testing.T) {
	srv := httptest.NewUnstartedServer(newRegistryHandler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // expected handshake failures below
	srv.StartTLS()
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "https://")
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs

	c := newTestClient(t, Options{RootCAs: pool})
	a := buildArtifact(t, "tls", "x")
	ref := mustParse(t, host+"/addon:v1")
	if _, err := c.Push(t.Context(), a.store, a.root, ref); err != nil {
		t.Fatalf("Push over TLS: %v", err)
	}
	if d, err := c.Resolve(t.Context(), ref); err != nil || d.Digest != a.root.Digest {
		t.Fatalf("Resolve over TLS = %v, %v", d, err)
	}
	if plain, err := c.plainHTTP(t.Context(), host); err != nil || plain {
		t.Fatalf("cached scheme for TLS loopback: plain=%v err=%v", plain, err)
	}

	// Without the CA the server still speaks TLS; verification fails.
	untrusted := newTestClient(t, Options{})
	if _, err := untrusted.Resolve(t.Context(), ref); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Resolve with untrusted certificate: %v, want ErrUnreachable", err)
	}
	if plain, err := untrusted.plainHTTP(t.Context(), host); err != nil || plain {
		t.Fatalf("untrusted TLS loopback: plain=%v err=%v, want TLS", plain, err)
	}
	insecure := newTestClient(t, Options{InsecureSkipTLSVerify: true})
	if _, err := insecure.Resolve(t.Context(), ref); err != nil {
		t.Fatalf("Resolve with InsecureSkipTLSVerify: %v", err)
	}
}

func TestSchemeForNonLoopbackHost(t *testing.T) {
	noNetwork := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		return nil, errors.New("no network in this test")
	})
	c := newTestClient(t, Options{Transport: noNetwork})
	for _, host := range []string{"registry.example.com", "registry.example.com:5000", "10.0.0.1:5000", "ghcr.io"} {
		plain, err := c.plainHTTP(t.Context(), host)
		if err != nil || plain {
			t.Errorf("plainHTTP(%q) = %v, %v; want https", host, plain, err)
		}
		repo, err := c.repository(t.Context(), mustParse(t, host+"/addon"))
		if err != nil || repo.PlainHTTP {
			t.Errorf("repository(%q).PlainHTTP = %v, %v", host, repo != nil && repo.PlainHTTP, err)
		}
	}
	forced := newTestClient(t, Options{Transport: noNetwork, PlainHTTP: true})
	for _, host := range []string{"registry.example.com:5000", "127.0.0.1:5000"} {
		if plain, err := forced.plainHTTP(t.Context(), host); err != nil || !plain {
			t.Errorf("PlainHTTP option: plainHTTP(%q) = %v, %v", host, plain, err)
		}
	}
}

func TestTransportAccessor(t *testing.T) {
	c := newTestClient(t, Options{InsecureSkipTLSVerify: true})
	idle, ok := c.Transport().(idleTimeout)
	if !ok || idle.d != DefaultReadTimeout {
		t.Fatalf("Transport() = %#v, want the read timeout applied", c.Transport())
	}
	tr, ok := idle.next.(*http.Transport)
	if !ok || tr == http.DefaultTransport || !tr.TLSClientConfig.InsecureSkipVerify {
		t.Fatalf("Transport() = %#v, want a configured clone", c.Transport())
	}
	custom := roundTripFunc(http.DefaultTransport.RoundTrip)
	if _, err := New(Options{Transport: custom, InsecureSkipTLSVerify: true, DockerConfig: t.TempDir() + "/c.json"}); err == nil {
		t.Fatal("New accepted TLS options with an opaque custom transport")
	}
}
