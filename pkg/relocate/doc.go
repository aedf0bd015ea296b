// Package relocate copies an addonpack artifact — by digest, with every
// signature, attestation and referrer — from one registry to another, or
// across an air gap through an OCI image layout tarball, and verifies it at
// the destination under the same policy.
//
// What is copied, starting from the artifact's manifest:
//
//   - the manifest and everything it references (config, content layer);
//   - cosign's classic tags of the manifest, "sha256-<hex>.sig", ".att" and
//     ".sbom", under the same tag names;
//   - every referrer of the manifest (Sigstore bundles and any other OCI 1.1
//     referrer), found through the referrers API or the referrers tag schema,
//     and, recursively, the classic tags and referrers of those.
//
// Referrers are pushed by digest: the destination registry indexes them
// itself (its referrers API, or the "sha256-<hex>" referrers tag schema that
// oras-go maintains on registries without it, such as distribution 2.8).
//
// With a policy, a registry source is verified before anything is written,
// and the destination is verified before the destination tag is set, so a
// tag never points at a copy that does not verify. A layout tarball keeps the
// cosign tags as tagged manifests of its index.json and the referrers as
// untagged ones, so that its round trip back into a registry verifies too.
package relocate
