// Package verify checks, before any content of an artifact is read, that the
// artifact's manifest digest carries signatures and attestations that a
// policy trusts. It finds candidates in both storage schemes pkg/sign writes
// (and cosign v2 writes): the classic "sha256-<hex>.sig"/".att" tags and
// Sigstore bundles stored as OCI referrers (referrers API or tag schema).
//
// Every candidate is checked completely: the signature bytes with each
// trusted key, then the claim (the simple-signing payload's manifest digest,
// or the in-toto statement's subject) against the exact digest being
// verified, then the payload and predicate types, then the key's validity
// window. Provenance (SLSA v1) is checked for subject, predicate type,
// builder id and source repository when the policy or the caller asks.
//
// Hostile registries are bounded: at most Limits.MaxSignatures candidates
// are examined (more is a failure, CVE-2023-46737), every blob fetched is
// capped at Limits.MaxBlobSize, and nothing valid means failure. Registry
// errors (unreachable, denied) are returned as they are, distinct from
// ErrVerification, so callers can tell "could not check" from "checked and
// refused".
package verify
