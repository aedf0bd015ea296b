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
// window. Sigstore bundles signed with a key are verified by sigstore-go's
// verifier with that key as the only trusted material (the bundle's key
// hint chooses nothing); classic .sig/.att layers are read as cosign writes
// them. Provenance (SLSA v1) is checked for subject, predicate type,
// builder id and source repository when the policy or the caller asks.
//
// Keyless signatures (a Fulcio certificate instead of a key, in a Sigstore
// bundle or in a classic layer's annotations) are verified with sigstore-go
// against the trusted roots a policy pins by digest (TrustedRoot), offline:
// the certificate chains to a CA valid at the signing time that a Rekor
// entry (SET or inclusion proof) and/or an RFC 3161 timestamp proves, with
// the checks the root's content requires and those the policy adds to them
// (Requirements, TrustedRoot.Require), and must match an Identity of the
// scope (issuer, subject, Fulcio extensions). CreateTrustedRoot assembles
// such a root from a private Sigstore's PEM material, refusing material
// that is not what it is given as (ErrTrustMaterial: a leaf as a CA, a
// chain that does not chain, a private or weak key). Keys and
// identities are both signers toward a scope's threshold; distinct signers
// are distinct keys or distinct certificate (issuer, subject) pairs.
//
// Hostile registries are bounded: at most Limits.MaxSignatures candidates
// are examined (more listed is a failure, CVE-2023-46737), every blob
// fetched is capped at Limits.MaxBlobSize, and nothing valid means failure.
// Registry errors (unreachable, denied) are returned as they are, distinct
// from ErrVerification, so callers can tell "could not check" from "checked
// and refused". A verification for the decision alone (MemoOptions and
// BatchOptions.Sufficient) that passes on the bundle referrers does not
// look up cosign's classic tags, so neither their count nor a registry
// error on them can fail it; the full verification (Verify) looks at both.
package verify
