// Package keys generates, loads and identifies the signing keys addonpack
// uses, in cosign's formats so that keys move freely between addonpack and
// the cosign CLI:
//
//   - GenerateKeyPair/WriteKeyPair write a cosign-format encrypted private
//     key ("ENCRYPTED SIGSTORE PRIVATE KEY", scrypt + secretbox) and a PEM
//     public key, exactly as `cosign generate-key-pair` does;
//   - LoadSigner unlocks a private key once: a file, "env://VAR" (the PEM in
//     an environment variable), or a sigstore KMS URI ("awskms://",
//     "gcpkms://", "azurekms://", "hashivault://") when the KMS providers are
//     linked in (import package keys/kms, as the addonpack command does);
//   - LoadVerifier loads a public key from the same kinds of reference;
//   - ID names a public key stably: "sha256:" + hex SHA-256 of its PKIX DER.
//
// Nothing here touches the network except a KMS provider that the caller
// linked in and named.
package keys
