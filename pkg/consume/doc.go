// Package consume is addonpack's consumer path as one library call: choose
// where an artifact is read from (a registry with the cache in front, the
// cache alone when offline, an OCI layout directory or tarball), resolve it
// once, verify the digest under a policy before any content is read —
// answered from the cache's verified digests when the same digest passed the
// same policy in the same repository recently — and fetch every blob by that
// digest, checked for size and digest.
//
// A Go program or a stack resolver gets "verified, cached, by digest" with
// the rules of the addonpack CLI, whose consumer verbs (pull, render,
// config, diff, lock) and verify only map their flags to Options and call
// this package:
//
//   - verification is required: a Policy, or an explicit InsecureSkipVerify,
//     which writes a warning naming the unverified digest;
//   - an OCI layout carries no signatures, so it is read only with
//     InsecureSkipVerify (verify the pushed copy instead);
//   - Offline fetches nothing: a tag resolves to the digest it last resolved
//     to, blobs come from the cache, and a digest is accepted only if its
//     verification under the policy is remembered there;
//   - a remembered verification stands for VerifiedTTL (an hour by
//     default), never past the expiry of a key of the policy's scope;
//   - a registry reference names the add-on it must hold (its repository,
//     or Name), and a semver tag its version: the verified config blob must
//     agree (verify.Claim, specs/artifact.md section 11.6).
//
// A stack resolver opens each node with OpenReference and that node's own
// Options (its policy), loads the verified manifest and config with
// Artifact.Load, and later unpacks the same digest with Artifact.Unpack.
//
// Verify and VerifyAll check references without reading their content:
// signatures under the policy, then the claim on the signed config blob.
package consume
