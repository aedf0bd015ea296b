// Package testregistry is a strict, in-process OCI registry implementing the
// OCI distribution-spec v1.1 (pull, push, content discovery and content
// management, including the referrers API).
//
// It is the registry behind every addonpack test, `make demo` and
// `addonpack registry serve`, so it deliberately errs on the side of being
// stricter than production registries:
//
//   - repository names, tags and digests are validated against the spec
//     grammars (NAME_INVALID, DIGEST_INVALID, MANIFEST_INVALID);
//   - blob uploads are verified against the requested digest, which may use
//     sha256 or sha512, and chunks must arrive in order (416 otherwise);
//   - image manifests may only reference blobs that exist in the repository
//     with the declared size, and indexes may only reference manifests that
//     exist in the repository (MANIFEST_BLOB_UNKNOWN); non-distributable
//     layers are exempt, and a missing `subject` is allowed as the spec
//     requires;
//   - every response carries the spec's JSON error bodies and headers
//     (Location, Docker-Content-Digest, OCI-Subject, OCI-Filters-Applied,
//     Link, Range, Content-Range).
//
// Tests start a registry with New, which listens on a free 127.0.0.1 port and
// stops with t.Cleanup. Options add basic auth (WithBasicAuth, WithHtpasswd),
// TLS with an in-memory self-signed certificate (WithTLS), persistent storage
// (WithStorage with NewFileStorage), a manifest size cap (WithMaxManifestSize)
// and deterministic fault injection (WithFaults). Every request is recorded
// and available from Registry.Log.
//
// Serve runs the same registry as a standalone server for the CLI.
package testregistry
