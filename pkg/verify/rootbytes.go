package verify

// Bytes returns the trusted_root.json the policy pinned, unchanged (its
// SHA-256 is r.Digest): for carrying it to a consumer that verifies
// keyless signatures itself (Flux's trustedRootSecretRef).
func (r *TrustedRoot) Bytes() []byte { return append([]byte(nil), r.raw...) }
