package registry

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"time"

	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// Defaults applied by New for zero-valued Options fields.
const (
	DefaultConcurrency     = 4
	DefaultMaxManifestSize = 4 << 20 // 4 MiB
	DefaultUserAgent       = "addonpack/dev"
	// idleConnsPerHost is how many idle keep-alive connections the default
	// transport keeps per registry host. Go's default of 2 makes every
	// request beyond the second in flight open (and then close) a new
	// connection; batch commands keep more than that in flight.
	idleConnsPerHost = 32
)

// Options configures a Client. The zero value is usable: HTTPS for every
// non-loopback registry, credentials from the default docker config
// location, DefaultConcurrency and DefaultMaxManifestSize.
//
// The package reads no environment variables itself; the CLI resolves
// DOCKER_CONFIG and passes the resulting path in DockerConfig. (When
// DockerConfig is empty, oras-go's credentials.NewStoreFromDocker picks the
// docker default location, and that function does consult $DOCKER_CONFIG.)
type Options struct {
	// PlainHTTP uses plain HTTP for every host. Loopback registries
	// (localhost, 127.0.0.0/8, [::1]) never need it: they are probed once.
	PlainHTTP bool
	// InsecureSkipTLSVerify disables certificate verification.
	InsecureSkipTLSVerify bool
	// RootCAs replaces the system roots for TLS verification when set.
	RootCAs *x509.CertPool
	// DockerConfig is the path of a docker config.json (auths, credsStore,
	// credHelpers). "" selects the oras/docker default location.
	DockerConfig string
	// Credential overrides DockerConfig when set.
	Credential auth.CredentialFunc
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	// The CLI sets "addonpack/<version>".
	UserAgent string
	// Transport is the base transport. nil means a clone of
	// http.DefaultTransport with the TLS settings above and 32 idle
	// connections kept per host (instead of 2). A *http.Transport
	// is cloned and gets the TLS settings applied; any other RoundTripper is
	// used as is and cannot be combined with RootCAs/InsecureSkipTLSVerify.
	Transport http.RoundTripper
	// Concurrency is the number of blob uploads in flight per Push, and of
	// blob downloads in flight across all FetchBlob/FetchBlobBytes calls of
	// the Client; <= 0 means DefaultConcurrency.
	Concurrency int
	// MaxManifestSize bounds manifests pushed, resolved and fetched;
	// <= 0 means DefaultMaxManifestSize.
	MaxManifestSize int64
	// ReadTimeout abandons a request that makes no progress for this long
	// (no request body byte taken, no response header, no response body
	// byte), on every request of the Client and of the transport it hands
	// out (Transport). An idempotent request is retried; a blob download
	// resumes where it stopped (at most twice); then the error wraps
	// ErrUnreachable. <= 0 means DefaultReadTimeout.
	ReadTimeout time.Duration
	// Progress, when set, is told of every blob FetchBlob downloads and
	// every blob a push uploads, with a Meter counting its bytes (for a
	// progress display; the CLI draws one on a terminal). Manifests, small
	// blobs read with FetchBlobBytes and blobs the registry already has
	// are not reported.
	Progress ProgressFunc
}

// withDefaults returns a copy of o with defaults filled in.
func (o Options) withDefaults() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.MaxManifestSize <= 0 {
		o.MaxManifestSize = DefaultMaxManifestSize
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	return o
}

// baseTransport builds the base round tripper (TLS settings, no retry, no
// auth) from the options.
func (o Options) baseTransport() (http.RoundTripper, error) {
	tlsSet := o.RootCAs != nil || o.InsecureSkipTLSVerify
	var t *http.Transport
	switch rt := o.Transport.(type) {
	case nil:
		dt, ok := http.DefaultTransport.(*http.Transport)
		if !ok {
			return nil, errors.New("registry: http.DefaultTransport is not an *http.Transport")
		}
		t = dt.Clone()
		t.MaxIdleConnsPerHost = idleConnsPerHost
	case *http.Transport:
		if !tlsSet {
			return rt, nil
		}
		t = rt.Clone()
	default:
		if tlsSet {
			return nil, fmt.Errorf("registry: cannot apply RootCAs/InsecureSkipTLSVerify to a custom transport of type %T", rt)
		}
		return rt, nil
	}
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if o.RootCAs != nil {
		t.TLSClientConfig.RootCAs = o.RootCAs
	}
	if o.InsecureSkipTLSVerify {
		t.TLSClientConfig.InsecureSkipVerify = true //nolint:gosec // explicitly requested by the user
	}
	return t, nil
}

// credentialHint says where credentials for host were read from and how to
// give others, for a registry that refused them.
func (o Options) credentialHint(host string) string {
	if o.Credential != nil {
		return "with the credentials the program gave"
	}
	file := o.DockerConfig
	if file == "" {
		file = "the docker config ($DOCKER_CONFIG/config.json, else ~/.docker/config.json)"
	}
	return fmt.Sprintf("credentials read from %s: run 'docker login %s', or pass --registry-config FILE", file, host)
}

// credentialFunc returns the credential source: Options.Credential, or a
// docker config store (file auths, credsStore and credHelpers).
func (o Options) credentialFunc() (auth.CredentialFunc, error) {
	if o.Credential != nil {
		return o.Credential, nil
	}
	var (
		store credentials.Store
		err   error
	)
	if o.DockerConfig != "" {
		store, err = credentials.NewStore(o.DockerConfig, credentials.StoreOptions{})
	} else {
		store, err = credentials.NewStoreFromDocker(credentials.StoreOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("registry: load docker config %q: %w", o.DockerConfig, err)
	}
	return credentials.Credential(store), nil
}
