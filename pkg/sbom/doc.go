// Package sbom describes what an add-on will run and what it is made of, as
// a CycloneDX 1.6 JSON document (through github.com/CycloneDX/cyclonedx-go):
// the container images of spec.images — resolved to digests where the
// reference is a tag and its registry answers, pinned digests kept as they
// are, the others listed as unresolved — and every file of the package tree
// with its SHA-256 digest. Signed as an in-toto attestation of predicate type
// PredicateType (what `cosign attest --type cyclonedx` writes), it is the
// inventory an admission policy or a vulnerability scanner starts from.
//
// The document is derived from the artifact alone (its config blob and its
// one layer) plus the image lookups, so the same artifact pushed twice
// describes itself the same way apart from the timestamp and what the image
// tags then resolved to.
package sbom
