// Package sign signs and attests addonpack artifacts in process, in the
// formats the cosign v2 CLI writes and reads, using cosign's and sigstore's
// libraries and addonpack's registry client for every request:
//
//   - FormatClassic (the default): cosign's tag scheme. A signature is a
//     simple-signing payload naming the manifest digest, stored as a layer of
//     the image tagged "sha256-<hex>.sig"; an attestation is a DSSE envelope
//     around an in-toto statement, stored as a layer of "sha256-<hex>.att"
//     with a "predicateType" annotation. Works on every registry.
//   - FormatBundle: a Sigstore bundle v0.3 (DSSE envelope, public key hint)
//     stored as an OCI 1.1 referrer of the manifest, as `cosign
//     --new-bundle-format` does; on registries without the referrers API the
//     referrers tag schema is maintained instead. A signature is then an
//     in-toto statement of type https://sigstore.dev/cosign/sign/v1.
//
// With Options.Keyless (NewKeyless) there is no key: sigstore-go's signer
// makes an ephemeral key, Fulcio certifies it for the OIDC identity token
// (IdentityToken: a flag, a file or the GitHub Actions ambient token), the
// signature is logged in Rekor (and timestamped by a TSA when one is
// given), and the result is always a FormatBundle bundle carrying the
// certificate, the log entry with its inclusion proof, and the timestamp:
// what `cosign verify --new-bundle-format` reads. Without Keyless nothing
// here contacts Rekor, Fulcio or any TUF repository.
package sign
