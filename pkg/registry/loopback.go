package registry

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
)

// IsLoopback reports whether host (with an optional port) is a loopback
// address: "localhost", 127.0.0.0/8 or ::1 ("[::1]:5000", "[::1]", "::1").
func IsLoopback(host string) bool {
	name := host
	if h, port, err := net.SplitHostPort(host); err == nil {
		if !isPort(port) {
			return false
		}
		name = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	return isLoopbackName(name)
}

// isPort reports whether port is a non-empty string of digits.
func isPort(port string) bool {
	if port == "" {
		return false
	}
	for _, c := range port {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(name)
	return err == nil && addr.Unmap().IsLoopback()
}

// schemeCache remembers, per registry host, whether a loopback registry
// speaks plain HTTP. Only definite answers are cached; an unreachable host
// is probed again next time.
type schemeCache struct {
	mu    sync.Mutex
	hosts map[string]*hostScheme
}

type hostScheme struct {
	mu    sync.Mutex // held while probing, so each host is probed once
	known bool
	plain bool
}

func (s *schemeCache) entry(host string) *hostScheme {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts == nil {
		s.hosts = make(map[string]*hostScheme)
	}
	e, ok := s.hosts[host]
	if !ok {
		e = &hostScheme{}
		s.hosts[host] = e
	}
	return e
}

// plainHTTP decides the scheme for host: Options.PlainHTTP forces plain HTTP;
// non-loopback hosts use HTTPS without any network access; loopback hosts are
// probed once per Client with "GET https://host/v2/" and use plain HTTP only
// when the server answered the TLS handshake with plain HTTP.
func (c *Client) plainHTTP(ctx context.Context, host string) (bool, error) {
	if c.opts.PlainHTTP {
		return true, nil
	}
	if !IsLoopback(host) {
		return false, nil
	}
	e := c.schemes.entry(host)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.known {
		return e.plain, nil
	}
	plain, err := c.probe(ctx, host)
	if err != nil {
		return false, c.wrapErr("probe", host, err)
	}
	e.known, e.plain = true, plain
	return plain, nil
}

// probe sends "GET https://host/v2/" through the base transport. Any HTTP
// answer, or a TLS failure after the handshake started (e.g. an untrusted
// certificate), means the server speaks TLS; a handshake answered in plain
// HTTP means plain HTTP. Dial errors are returned as is. For any other
// failure (a server that just drops the ClientHello) a plain "GET
// http://host/v2/" decides: an HTTP answer means plain HTTP.
func (c *Client) probe(ctx context.Context, host string) (bool, error) {
	err := c.ping(ctx, "https", host)
	var (
		recErr tls.RecordHeaderError
		opErr  *net.OpError
	)
	switch {
	case err == nil, isTLSProtocolError(err):
		return false, nil
	case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &recErr):
		return true, nil
	case errors.As(err, &opErr) && opErr.Op == "dial", ctx.Err() != nil:
		return false, err
	}
	if c.ping(ctx, "http", host) == nil {
		return true, nil
	}
	return false, err
}

// ping sends "GET scheme://host/v2/" and reports whether any HTTP response
// came back.
func (c *Client) ping(ctx context.Context, scheme, host string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+host+"/v2/", nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	hc := &http.Client{
		Transport: c.base,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBytes))
	return resp.Body.Close()
}

// isTLSProtocolError reports TLS errors that can only happen once the server
// took part in a TLS handshake.
func isTLSProtocolError(err error) bool {
	var (
		alertErr  tls.AlertError
		verifyErr *tls.CertificateVerificationError
	)
	return errors.As(err, &alertErr) || errors.As(err, &verifyErr)
}
