// Package registry is the only package of addonpack that speaks HTTP to OCI
// registries. It pushes an artifact graph from a local content store to a
// repository, resolves references to manifest descriptors, and fetches
// manifests and blobs back with their size and digest verified.
//
// Transport is oras-go v2: an auth.Client (Basic and Bearer token auth, token
// cache, User-Agent) over oras' retry transport (idempotent requests only)
// over a base transport carrying the TLS settings. Credentials come from
// Options.Credential or a docker config.json (auths, credsStore,
// credHelpers) through oras' credentials package.
//
// Schemes: every registry is reached over HTTPS unless Options.PlainHTTP is
// set, except loopback registries (localhost, 127.0.0.0/8, [::1], any port).
// Those are probed once per Client with "GET https://host/v2/"; when the
// server answers the TLS handshake in plain HTTP, plain HTTP is used and the
// answer is cached, so both plain and TLS loopback registries work without a
// flag, as with docker and crane.
//
// Integrity: FetchManifest and FetchBlob never trust the registry. They read
// at most the descriptor's size (one byte more only to detect an oversized
// body, which is never written out), fail on short bodies, and compare the
// digest of what was read. Resolve compares the registry's answer with a
// digest pinned in the reference ("repo:tag@sha256:...").
//
// Errors wrap one of the sentinels (ErrNotFound, ErrUnauthorized,
// ErrUnreachable, ErrTooLarge, ErrInvalidReference, or errdef's
// ErrDigestMismatch and ErrSizeMismatch), each in its errdef class, together
// with the reference or digest concerned and the underlying error; test them
// with errors.Is.
package registry
