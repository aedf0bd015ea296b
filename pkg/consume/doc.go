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
// Consumer holds one configuration of all that: the CLI's consumer verbs
// build one from their flags and make one call on it (Package, Artifact,
// Addon, Schema, GitOps, Source); pkg/stack takes it for every add-on of a
// stack (Load, Open, Pull and GitOps, each bound to the name the stack
// gives the add-on).
//
// What a command-line argument names is decided by one rule (ParseArg):
//
//   - an argument written as a path ("./x", "../x", "/x", "~", "~/x", ".",
//     "..") is a path — an add-on source directory, an OCI layout directory
//     or an OCI layout tarball; one that does not exist is not found, one
//     that exists but is none of those says what is wrong with it;
//   - any other argument is a registry reference when it parses as one: it
//     needs a registry part (a host with a '.' or a ':', or localhost in any
//     case); one that does not is a path when a file or directory of that
//     name exists (kubectl apply -k DIR, helm template DIR), else a usage
//     error that shows how to write the path;
//   - an argument that is both a reference and an existing path is refused
//     naming both readings (ErrAmbiguousArg): a checkout never stands in
//     for a verified artifact, nor the other way round.
package consume
