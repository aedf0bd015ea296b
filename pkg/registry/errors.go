package registry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"

	"oras.land/oras-go/v2/content"
	orasErrdef "oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Sentinel errors. Errors returned by this package wrap at most one of them
// (test with errors.Is) together with the reference or digest concerned and,
// where there is one, the underlying transport or registry error.
var (
	// ErrInvalidReference reports a reference that cannot be parsed or lacks
	// a part the operation needs.
	ErrInvalidReference = errdef.New(errdef.ErrInvalidArgument, "invalid reference")
	// ErrNotFound reports a manifest, tag, blob or repository the registry
	// does not have (HTTP 404).
	ErrNotFound = errdef.New(errdef.ErrNotFound, "not found")
	// ErrUnauthorized reports missing or rejected credentials (HTTP 401/403).
	ErrUnauthorized = errdef.New(errdef.ErrDenied, "unauthorized")
	// ErrUnreachable reports a registry that could not be reached: dial,
	// DNS, TLS and timeout failures.
	ErrUnreachable = errdef.New(errdef.ErrUnreachable, "registry unreachable")
	// ErrTooLarge reports content larger than the configured limit.
	ErrTooLarge = errdef.New(errdef.ErrInvalid, "content too large")
)

// wrapErr annotates err with an operation and its subject (a reference,
// REPOSITORY@DIGEST or a host) and adds the matching sentinel when err does
// not carry one yet. The original error stays in the chain. Refused
// credentials name where they were read from and how to give others.
func (c *Client) wrapErr(op, subject string, err error) error {
	if err == nil {
		return nil
	}
	if s := sentinelFor(err); s != nil {
		if s == ErrUnauthorized {
			host, _, _ := strings.Cut(subject, "/")
			return fmt.Errorf("%s %s: %w (%s): %w", op, subject, s, c.opts.credentialHint(host), err)
		}
		if s == ErrUnreachable && errors.Is(err, syscall.ECONNREFUSED) {
			// The dial error alone: the HTTP client's text quotes the URL it
			// tried, https:// for a loopback registry probed for TLS first,
			// although it is spoken to over plain HTTP.
			var dial *net.OpError
			if errors.As(err, &dial) {
				err = dial
			}
			return fmt.Errorf("%s %s: %w: nothing is listening there (connection refused; is the registry running, on that port?): %w", op, subject, s, err)
		}
		return fmt.Errorf("%s %s: %w: %w", op, subject, s, err)
	}
	return fmt.Errorf("%s %s: %w", op, subject, err)
}

// sentinelFor maps oras, HTTP and network errors to this package's sentinels.
// It returns nil when err already carries a sentinel or none applies.
func sentinelFor(err error) error {
	for _, s := range []error{
		ErrInvalidReference, ErrNotFound, ErrUnauthorized, ErrUnreachable,
		errdef.ErrDigestMismatch, errdef.ErrSizeMismatch, ErrTooLarge,
	} {
		if errors.Is(err, s) {
			return nil
		}
	}
	var resp *errcode.ErrorResponse
	switch {
	case errors.Is(err, context.Canceled):
		return nil
	case errors.Is(err, orasErrdef.ErrNotFound):
		return ErrNotFound
	case errors.Is(err, orasErrdef.ErrSizeExceedsLimit):
		return ErrTooLarge
	case errors.Is(err, orasErrdef.ErrInvalidReference):
		return ErrInvalidReference
	case errors.Is(err, content.ErrMismatchedDigest):
		return errdef.ErrDigestMismatch
	case errors.Is(err, content.ErrTrailingData), errors.Is(err, content.ErrInvalidDescriptorSize):
		return errdef.ErrSizeMismatch
	case errors.Is(err, auth.ErrBasicCredentialNotFound):
		return ErrUnauthorized
	case errors.As(err, &resp):
		switch resp.StatusCode {
		case http.StatusNotFound:
			return ErrNotFound
		case http.StatusUnauthorized, http.StatusForbidden:
			return ErrUnauthorized
		}
		return nil
	case isUnreachable(err):
		return ErrUnreachable
	}
	return nil
}

// isUnreachable reports dial, DNS, TLS and timeout errors.
func isUnreachable(err error) bool {
	var (
		opErr      *net.OpError
		dnsErr     *net.DNSError
		netErr     net.Error
		recErr     tls.RecordHeaderError
		alertErr   tls.AlertError
		verifyErr  *tls.CertificateVerificationError
		unknownCA  x509.UnknownAuthorityError
		hostErr    x509.HostnameError
		invalidErr x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &opErr), errors.As(err, &dnsErr),
		errors.As(err, &recErr), errors.As(err, &alertErr), errors.As(err, &verifyErr),
		errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalidErr):
		return true
	case errors.Is(err, http.ErrSchemeMismatch), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, os.ErrDeadlineExceeded),
		errors.Is(err, context.DeadlineExceeded):
		return true
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	}
	return false
}

// maxErrorBytes bounds how much of an error response body is read.
const maxErrorBytes = 8 << 10

// parseErrorResponse turns a non-success response into an
// *errcode.ErrorResponse, the same error type oras-go returns, so callers can
// inspect status and registry error codes uniformly.
func parseErrorResponse(resp *http.Response) error {
	e := &errcode.ErrorResponse{
		Method:     resp.Request.Method,
		URL:        resp.Request.URL,
		StatusCode: resp.StatusCode,
	}
	var body struct {
		Errors errcode.Errors `json:"errors"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxErrorBytes)).Decode(&body); err == nil {
		e.Errors = body.Errors
	}
	return e
}
