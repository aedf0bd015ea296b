// Package testsigstore is a private Sigstore for tests, held in memory: a
// Fulcio-style certificate authority (root and intermediate), a Rekor log
// key, a CT log key and an RFC 3161 timestamping authority, with the
// writers that turn them into what keyless signing produces. Nothing here
// touches the network except the registry writers, and those only the
// loopback registry a test names.
//
// Trust material:
//
//	ss, _ := testsigstore.New()                              // WithValidity(start, end) bounds the CA's declared validity
//	rootJSON, _ := ss.TrustedRootJSON(testsigstore.RootOptions{}) // trusted_root.json (WithoutRekor/WithoutCTLog/WithoutTSA)
//	tr, _ := ss.TrustedRoot(testsigstore.RootOptions{})      // the same as a sigstore-go *root.TrustedRoot
//
// Identities, as Fulcio v1.8.4 puts them in certificates:
//
//	testsigstore.Email("dev@example.com", testsigstore.GoogleIssuer)
//	testsigstore.GitHubWorkflow{Repository: "acme/addons", Ref: "refs/tags/v1.0.0"}.Identity()
//
// A GitHub identity has the SAN URI https://github.com/OWNER/REPO/PATH@REF
// and every Fulcio extension (1.3.6.1.4.1.57264.1.1–1.6 as raw strings, 1.8–1.22
// as DER UTF8Strings, exactly as Fulcio encodes them). Leaf certificates
// (Sigstore.Leaf) embed an SCT signed by the CT log over the precertificate
// TBS, so SCT verification against the root's CT log passes.
//
// Signing (SignOptions: At moves the signing time, Cert overrides the leaf's
// validity or drops its SCT, NoTlog/NoTimestamp drop the log entry or the
// timestamp, ForeignLog signs the log entry with a key the root does not
// hold, BundleVersion "0.1"/"0.2" writes older bundles):
//
//	ss.DSSEBundle(id, statement, o)           // Sigstore bundle (v0.3 unless o.BundleVersion), DSSE envelope, dsse log entry
//	ss.MessageBundle(id, payload, o)          // Sigstore bundle v0.3, message signature, hashedrekord entry
//	ss.ClassicSignature(id, repo, digest, o)  // cosign .sig layer: simple-signing payload + cert/chain/bundle/timestamp annotations
//	ss.ClassicAttestation(id, stmt, pt, o)    // cosign .att layer: DSSE envelope + the same annotations
//	ss.SignMessage / ss.SignDSSE              // the parts, for tests that assemble something else
//
// Log entries carry both a signed entry timestamp and an inclusion proof
// (a one-leaf tree with a signed checkpoint), as Rekor v1 returns them.
// Statement and SimpleSigning build the payloads for an OCI manifest digest.
//
// Storage, with cosign's own library so that the bytes are what the cosign
// CLI writes: WriteBundle stores a bundle as an OCI referrer (referrers API
// or the referrers tag schema), WriteClassic appends layers to the
// "sha256-<hex>.sig"/".att" images.
//
// HTTP servers for Fulcio, Rekor and a TSA built on the same Sigstore, for
// signing clients (the cosign CLI, addonpack --keyless), live in this
// package's servers*.go files.
package testsigstore
