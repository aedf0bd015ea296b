package tufroot

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/tuf"
	"github.com/theupdateframework/go-tuf/v2/metadata"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

const (
	// DefaultURL is Sigstore's public-good TUF mirror.
	DefaultURL = tuf.DefaultMirror
	// Target is the TUF target holding the trusted root.
	Target = "trusted_root.json"
	// SigningConfigTarget is the TUF target holding the Sigstore signing
	// config (where cosign v3 finds its Fulcio, Rekor and TSA URLs).
	SigningConfigTarget = "signing_config.v0.2.json"
	// MaxRootSize bounds a TUF root.json (go-tuf's own limit for one).
	MaxRootSize = 512000
	// DefaultTimeout bounds each request when Options.Timeout is not set.
	DefaultTimeout = 30 * time.Second
)

// Options say which TUF repository to trust and how long to wait for it.
type Options struct {
	// URL is the repository's base URL (default DefaultURL). It must be
	// https, or http on a loopback host.
	URL string
	// InitialRoot is the TUF root.json trusted first, from which the
	// client walks to the current root. Default: the public-good root
	// embedded in sigstore-go, which is accepted only for DefaultURL.
	InitialRoot []byte
	// InitialRootFile is the file InitialRoot was read from
	// (UseInitialRoot), named in FetchFiles' errors about it.
	InitialRootFile string
	// RootCAs replaces the system roots for the repository's TLS
	// certificate when set (a private mirror, a TLS-inspecting proxy).
	RootCAs *x509.CertPool
	// Timeout bounds each request (default DefaultTimeout).
	Timeout   time.Duration
	UserAgent string
}

// Fetch runs the TUF client workflow against the repository and returns
// the verified bytes of trusted_root.json. Nothing is written to disk.
func Fetch(ctx context.Context, o Options) ([]byte, error) {
	raw, err := FetchTargets(ctx, o, Target)
	if err != nil {
		return nil, err
	}
	return raw[0], nil
}

// FetchTargets runs the TUF client workflow once and returns the verified
// bytes of each target named, in order (Target, SigningConfigTarget).
func FetchTargets(ctx context.Context, o Options, names ...string) ([][]byte, error) {
	base, initial, err := o.resolve()
	if err != nil {
		return nil, err
	}
	// With the cache disabled nothing is read or written under CachePath;
	// an empty directory of our own keeps it so whatever the working
	// directory holds.
	dir, err := os.MkdirTemp("", "addonpack-tuf-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var client *tuf.Client
	f := &fetcher{ctx: ctx, userAgent: o.UserAgent, client: &http.Client{Timeout: timeout, Transport: o.transport()}}
	err = unpanic(ErrMetadata, func() (err error) {
		client, err = tuf.New(&tuf.Options{
			Root:              initial,
			RepositoryBaseURL: base,
			CachePath:         dir,
			DisableLocalCache: true,
			Fetcher:           f,
		})
		return err
	})
	if err != nil {
		return nil, classify(base, f.last, err, ErrMetadata)
	}
	out := make([][]byte, len(names))
	for i, name := range names {
		err = unpanic(ErrMetadata, func() (err error) {
			out[i], err = client.GetTarget(name)
			return err
		})
		if err != nil {
			return nil, classify(base, f.last, fmt.Errorf("target %s: %w", name, err), ErrNoTarget)
		}
	}
	return out, nil
}

// FetchFile fetches the trusted root and writes it to out as
// verify.WriteTrustedRootFile does (checked, atomic, an existing out
// refused unless force), returning the digest to pin.
func FetchFile(ctx context.Context, o Options, out string, force bool) (string, error) {
	if _, err := os.Lstat(out); err == nil && !force {
		return "", fmt.Errorf("%s: %w (use --force to replace it)", out, errdef.ErrExists)
	}
	raw, err := Fetch(ctx, o)
	if err != nil {
		return "", err
	}
	return verify.WriteTrustedRootFile(raw, strings.TrimSuffix(o.base(), "/")+" target "+Target, out, force)
}

// FetchFiles is FetchFile that also fetches the signing config
// (SigningConfigTarget) in the same TUF run and writes it to signingOut
// (specs/signing.md section 2): both are fetched and checked before either
// is written, and an existing file is refused unless force. It returns the
// trusted root's digest to pin. With signingOut empty it is FetchFile. An
// initial root refused (ErrInitialRoot) is named by InitialRootFile.
func FetchFiles(ctx context.Context, o Options, out, signingOut string, force bool) (string, error) {
	d, err := fetchFiles(ctx, o, out, signingOut, force)
	if err != nil && o.InitialRootFile != "" && errors.Is(err, ErrInitialRoot) {
		return "", fmt.Errorf("--tuf-root %s: %w", o.InitialRootFile, err)
	}
	return d, err
}

func fetchFiles(ctx context.Context, o Options, out, signingOut string, force bool) (string, error) {
	if signingOut == "" {
		return FetchFile(ctx, o, out, force)
	}
	for _, p := range []string{out, signingOut} {
		if _, err := os.Lstat(p); err == nil && !force {
			return "", fmt.Errorf("%s: %w (use --force to replace it)", p, errdef.ErrExists)
		}
	}
	raw, err := FetchTargets(ctx, o, Target, SigningConfigTarget)
	if err != nil {
		return "", err
	}
	where := strings.TrimSuffix(o.base(), "/") + " target "
	if _, err := sign.ParseSigningConfig(raw[1]); err != nil {
		return "", fmt.Errorf("%s%s: %w: %w", where, SigningConfigTarget, ErrMetadata, err)
	}
	digest, err := verify.WriteTrustedRootFile(raw[0], where+Target, out, force) // checks it first
	if err != nil {
		return "", err
	}
	if err := atomicfile.Write(signingOut, raw[1], force); err != nil {
		return "", fmt.Errorf("%s: %w", signingOut, err)
	}
	return digest, nil
}

func (o Options) base() string {
	if o.URL == "" {
		return DefaultURL
	}
	return o.URL
}

// resolve returns the repository URL and the initial root to trust.
func (o Options) resolve() (string, []byte, error) {
	base := o.base()
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", nil, fmt.Errorf("%w: TUF repository URL %q: want https://HOST[/PATH]", ErrOptions, base)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname())) {
		return "", nil, fmt.Errorf("%w: TUF repository URL %s: want https (http only on a loopback host)", ErrOptions, base)
	}
	initial := o.InitialRoot
	if len(initial) == 0 {
		if strings.TrimSuffix(base, "/") != DefaultURL {
			return "", nil, fmt.Errorf("%w: TUF repository %s is not Sigstore's public-good mirror: give the initial root.json to trust for it", ErrOptions, base)
		}
		initial = tuf.DefaultRoot()
	}
	if len(initial) > MaxRootSize {
		return "", nil, fmt.Errorf("%w: larger than %d bytes", ErrInitialRoot, MaxRootSize)
	}
	err = unpanic(ErrInitialRoot, func() error {
		r, err := metadata.Root().FromBytes(initial)
		if err != nil {
			return err
		}
		return r.VerifyDelegate(metadata.ROOT, r)
	})
	if err != nil && !errors.Is(err, ErrInitialRoot) {
		err = fmt.Errorf("%w: %w", ErrInitialRoot, err)
	}
	if err != nil {
		return "", nil, err
	}
	return base, initial, nil
}

// unpanic runs f, turning a panic into sentinel: go-tuf v2.3.0's
// metadata parser panics on JSON whose "signed" is not an object with a
// string "_type" (metadata.checkType's unchecked assertions), and a broken
// or hostile mirror must not crash the command.
func unpanic(sentinel error, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: malformed metadata (%v)", sentinel, r)
		}
	}()
	return f()
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// classify puts a TUF client failure in its class; fallback is for the
// errors go-tuf does not type (a target its targets do not list, say).
// go-tuf's verification errors do not say which file failed ("expected 2,
// got 1"), so the last file fetched whole (last) is named when err names
// none of the repository's.
func classify(base, last string, err error, fallback error) error {
	if last != "" && !strings.Contains(err.Error(), base) {
		err = fmt.Errorf("%w (the last file fetched: %s)", err, last)
	}
	var status *metadata.ErrDownloadHTTP
	class := fallback
	switch {
	case errors.Is(err, ErrUnreachable), errors.Is(err, ErrOptions):
		return fmt.Errorf("TUF repository %s: %w", base, err)
	case errors.As(err, &status):
		class = ErrUnreachable
		if status.StatusCode == http.StatusNotFound || status.StatusCode == http.StatusForbidden || status.StatusCode == http.StatusGone {
			class = ErrNoTarget
		}
	case errors.Is(err, &metadata.ErrLengthOrHashMismatch{}), errors.Is(err, &metadata.ErrDownloadLengthMismatch{}):
		class = ErrMismatch
	case errors.Is(err, &metadata.ErrRepository{}), errors.Is(err, &metadata.ErrValue{}), errors.Is(err, &metadata.ErrType{}):
		class = ErrMetadata
	}
	return fmt.Errorf("TUF repository %s: %w: %w", base, class, err)
}

// transport is the default transport, trusting RootCAs instead of the
// system roots when they are set.
func (o Options) transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if o.RootCAs != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	}
	return t
}
