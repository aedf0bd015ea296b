package testregistry

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Registry is a running in-process registry started by New.
type Registry struct {
	h        *handler
	scheme   string
	host     string
	certPool *x509.CertPool
	blobHost *blobHost // non-nil with a RedirectBlob fault
}

// New starts a registry on a free 127.0.0.1 port and stops it with
// t.Cleanup. It fails the test if the registry cannot start.
func New(t testing.TB, opts ...Option) *Registry {
	t.Helper()
	o := buildOptions(opts)
	if o.htpasswdErr != nil {
		t.Fatalf("testregistry: %v", o.htpasswdErr)
	}
	reg := &Registry{h: newHandler(o), scheme: "http"}
	var tlsConf *tls.Config
	if o.tls {
		cert, pool, err := selfSignedCert()
		if err != nil {
			t.Fatalf("testregistry: %v", err)
		}
		tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		reg.certPool, reg.scheme = pool, "https"
	}
	if reg.h.faults != nil && hasRule(o.faults.Rules, RedirectBlob) {
		reg.blobHost = &blobHost{h: reg.h, log: &requestLog{}}
		// The blob host is named "localhost", a different host from
		// 127.0.0.1, so clients must not forward credentials to it.
		hostport := startServer(t, reg.blobHost, tlsConf)
		reg.h.redirectURL = reg.scheme + "://localhost:" + hostport[strings.LastIndex(hostport, ":")+1:]
	}
	reg.host = startServer(t, reg.h, tlsConf)
	if reg.h.faults != nil {
		t.Cleanup(reg.h.faults.stop) // runs before the servers close (LIFO)
	}
	return reg
}

func hasRule(rules []FaultRule, kind FaultKind) bool {
	for _, r := range rules {
		if r.Kind == kind {
			return true
		}
	}
	return false
}

// startServer serves handler on a fresh loopback listener until the test
// ends and returns "127.0.0.1:PORT".
func startServer(t testing.TB, handler http.Handler, tlsConf *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testregistry: listen: %v", err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	if tlsConf != nil {
		srv.TLSConfig = tlsConf.Clone()
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("testregistry: serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// Host returns "127.0.0.1:PORT".
func (r *Registry) Host() string { return r.host }

// URL returns "http://127.0.0.1:PORT", or https with WithTLS.
func (r *Registry) URL() string { return r.scheme + "://" + r.host }

// Log returns a copy of the request log so far.
func (r *Registry) Log() []Request { return r.h.log.snapshot() }

// ResetLog empties the request log.
func (r *Registry) ResetLog() { r.h.log.reset() }

// CertPool trusts the registry's certificate with WithTLS; nil otherwise.
func (r *Registry) CertPool() *x509.CertPool { return r.certPool }

// Client returns an http.Client that trusts the registry's certificate.
func (r *Registry) Client() *http.Client {
	if r.certPool == nil {
		return &http.Client{}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: r.certPool, MinVersion: tls.VersionTLS12}}}
}

// RedirectURL is the base URL of the blob host used by RedirectBlob faults
// ("" without such a fault).
func (r *Registry) RedirectURL() string { return r.h.redirectURL }

// RedirectLog returns the requests the blob host received, each with the
// Authorization header it carried.
func (r *Registry) RedirectLog() []Request {
	if r.blobHost == nil {
		return nil
	}
	return r.blobHost.log.snapshot()
}
