package registry

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strconv"

	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// Client talks to OCI registries. It is safe for concurrent use. It caches
// auth tokens and the scheme decided for each loopback registry, so reuse one
// Client per command.
type Client struct {
	opts    Options           // with defaults applied
	base    http.RoundTripper // TLS settings and the read timeout, no retry, no auth
	auth    *auth.Client      // credentials, token cache, User-Agent, retries
	schemes schemeCache
	// referrers remembers which hosts serve the referrers API.
	referrers referrersCaps
	// downloads bounds concurrent blob downloads (Options.Concurrency).
	downloads chan struct{}
}

// New returns a Client for opts. It loads the docker config (unless
// opts.Credential is set) but does not touch the network.
func New(opts Options) (*Client, error) {
	opts = opts.withDefaults()
	tlsBase, err := opts.baseTransport()
	if err != nil {
		return nil, err
	}
	base := idleTimeout{next: tlsBase, d: opts.ReadTimeout}
	cred, err := opts.credentialFunc()
	if err != nil {
		return nil, err
	}
	drained := drainErrors{base}
	ac := &auth.Client{
		Client: &http.Client{Transport: &idempotentRetry{
			retry: retry.NewTransport(drained),
			base:  drained,
		}},
		Credential: cred,
		Cache:      auth.NewCache(),
	}
	ac.SetUserAgent(opts.UserAgent)
	return &Client{
		opts:      opts,
		base:      base,
		auth:      ac,
		downloads: make(chan struct{}, opts.Concurrency),
	}, nil
}

// Transport returns the configured base transport: TLS settings and the read
// timeout applied, no retries, no authentication, no User-Agent. It is meant for building other
// clients (e.g. go-containerregistry remote.WithTransport) on the same
// network settings.
func (c *Client) Transport() http.RoundTripper {
	return c.base
}

// CredentialFunc returns the credential source in use (Options.Credential or
// the docker config store), e.g. to build a go-containerregistry keychain.
func (c *Client) CredentialFunc() auth.CredentialFunc {
	return c.auth.Credential
}

// repository returns an oras-go repository for ref's registry and repository,
// with the scheme decided for its host, the shared auth client and the
// manifest size limit. Tag and digest of ref are not used.
func (c *Client) repository(ctx context.Context, ref Reference) (*remote.Repository, error) {
	if err := ref.validateRepo(); err != nil {
		return nil, err
	}
	plain, err := c.plainHTTP(ctx, ref.Registry)
	if err != nil {
		return nil, err
	}
	return &remote.Repository{
		Client:           c.auth,
		Reference:        ref.orasRef(),
		PlainHTTP:        plain,
		MaxMetadataBytes: c.opts.MaxManifestSize,
	}, nil
}

// endpoint returns the URL of "/v2/<repository>/<kind>/<name>" for repo,
// kind being "manifests" or "blobs", and ctx with the pull scope for repo
// (used by the auth client to request bearer tokens).
func endpoint(ctx context.Context, repo *remote.Repository, kind, name string) (context.Context, string) {
	scheme := "https"
	if repo.PlainHTTP {
		scheme = "http"
	}
	ctx = auth.AppendRepositoryScope(ctx, repo.Reference, auth.ActionPull)
	return ctx, fmt.Sprintf("%s://%s/v2/%s/%s/%s", scheme, repo.Reference.Host(), repo.Reference.Repository, kind, name)
}

// idempotentRetry retries idempotent requests (GET, HEAD, PUT, DELETE,
// OPTIONS) with oras-go's retry policy: 408, 429, 5xx, timeouts, resets.
// Other requests (POST starting an upload, PATCH) are sent once. A request
// body is retried only when it can be rewound (req.GetBody).
type idempotentRetry struct {
	retry http.RoundTripper
	base  http.RoundTripper
}

func (t *idempotentRetry) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return t.retry.RoundTrip(req)
	}
	return t.base.RoundTrip(req)
}

// headerDigest is the registry's digest response header.
const headerDigest = "Docker-Content-Digest"

// get sends method to /v2/<repo>/<kind>/<name> through the auth client (with
// the repository's pull scope, retries and User-Agent).
func (c *Client) get(ctx context.Context, repo *remote.Repository, method, kind, name, accept string) (*http.Response, error) {
	ctx, u := endpoint(ctx, repo, kind, name)
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	return repo.Client.Do(req)
}

func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return mt
}

// headerDigestOf returns the Docker-Content-Digest header, "" if absent.
func headerDigestOf(h http.Header) (digest.Digest, error) {
	v := h.Get(headerDigest)
	if v == "" {
		return "", nil
	}
	d, err := digest.Parse(v)
	if err != nil {
		return "", fmt.Errorf("invalid %s header %s: %w", headerDigest, strconv.Quote(v), err)
	}
	return d, nil
}
