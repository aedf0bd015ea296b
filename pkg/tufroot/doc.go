// Package tufroot fetches a Sigstore trusted root (trusted_root.json) from
// a TUF repository — by default Sigstore's public-good mirror, starting
// from the TUF root embedded in sigstore-go — and writes it where keyless
// verification (pkg/verify) reads it, returning the digest a policy pins.
//
// This is the one online step of keyless trust, taken explicitly by
// `addonpack trusted-root fetch`: verification itself never fetches
// anything. The TUF client (sigstore-go's pkg/tuf over go-tuf v2) checks
// the repository's root, timestamp, snapshot and targets metadata, their
// signatures, versions, expiry and the target's length and hashes; nothing
// is cached on disk, every request is bounded in time and size, and the
// fetched root must parse as one pkg/verify accepts before it is written.
//
//	digest, err := tufroot.FetchFile(ctx, tufroot.Options{}, "trusted_root.json", false)
package tufroot
