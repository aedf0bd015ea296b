package testregistry

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Config configures Serve, the standalone registry behind
// `addonpack registry serve`.
type Config struct {
	Addr     string    // listen address; "" means 127.0.0.1:5000, port 0 picks a free port
	Root     string    // filesystem storage root; "" keeps everything in memory
	Htpasswd string    // optional htpasswd file enabling basic auth
	TLSCert  string    // PEM certificate file; with TLSKey enables HTTPS
	TLSKey   string    // PEM key file
	Log      io.Writer // access log, one line per request; may be nil
	// AllowSparse accepts manifests with missing references (WithSparseManifests).
	AllowSparse bool
}

// shutdownTimeout bounds the graceful shutdown in Serve.
const shutdownTimeout = 10 * time.Second

// Serve listens on cfg.Addr, calls ready with the bound address
// ("HOST:PORT"), and serves until ctx is done; then it shuts down
// gracefully and returns nil. It returns an error if it cannot start.
func Serve(ctx context.Context, cfg Config, ready func(addr string)) error {
	opts := []Option{WithAccessLog(cfg.Log)}
	if cfg.Root != "" {
		store, err := NewFileStorage(cfg.Root)
		if err != nil {
			return fmt.Errorf("registry storage: %w", err)
		}
		opts = append(opts, WithStorage(store))
	}
	if cfg.AllowSparse {
		opts = append(opts, WithSparseManifests())
	}
	if cfg.Htpasswd != "" {
		opts = append(opts, WithHtpasswd(cfg.Htpasswd))
	}
	o := buildOptions(opts)
	if o.htpasswdErr != nil {
		return o.htpasswdErr
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return errors.New("registry TLS needs both a certificate and a key")
	}
	srv := &http.Server{Handler: newHandler(o), ReadHeaderTimeout: 30 * time.Second}
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:5000"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("registry listen: %w", err)
	}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("registry TLS: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-served:
		return fmt.Errorf("registry serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("registry shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("registry serve: %w", err)
	}
	return nil
}
