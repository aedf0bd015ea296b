package verify

import (
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrVerification is matched by every verification failure (errors.Is).
// The specific reasons below are matched too.
var ErrVerification = errdef.New(errdef.ErrVerification, "verification failed")

// Specific reasons, each wrapped (with the digest, key and location) in the
// *Error that Verify returns.
var (
	ErrUnsigned      = errdef.New(errdef.ErrVerification, "no signatures found")
	ErrUntrusted     = errdef.New(errdef.ErrVerification, "signature not made by a trusted key")
	ErrDigestClaim   = errdef.New(errdef.ErrVerification, "signed claim names another digest")
	ErrPayloadType   = errdef.New(errdef.ErrVerification, "wrong payload type")
	ErrPredicateType = errdef.New(errdef.ErrVerification, "wrong predicate type")
	ErrKeyWindow     = errdef.New(errdef.ErrVerification, "key outside its validity window")
	ErrThreshold     = errdef.New(errdef.ErrVerification, "signature threshold not met")
	ErrTooMany       = errdef.New(errdef.ErrVerification, "too many signatures or attestations")
	ErrBlobTooLarge  = errdef.New(errdef.ErrVerification, "signature or attestation blob too large")
	ErrMalformed     = errdef.New(errdef.ErrVerification, "malformed signature or attestation")
	ErrProvenance    = errdef.New(errdef.ErrVerification, "provenance requirement not met")
	// ErrAttestation: an attestation a policy requires (predicateTypes,
	// --require-attestation: an SBOM, a test report) is not there.
	ErrAttestation = errdef.New(errdef.ErrVerification, "required attestation missing")
	ErrNoPolicy    = errdef.New(errdef.ErrVerification, "no policy applies")
	ErrPolicy      = errdef.New(errdef.ErrInvalid, "invalid policy")
	// Keyless signatures (specs/policy.md, "Keyless signers").
	ErrRootDigest = errdef.New(errdef.ErrInvalid, "trusted root digest mismatch")
	ErrIdentity   = errdef.New(errdef.ErrVerification, "certificate identity not trusted")
	ErrKeyless    = errdef.New(errdef.ErrVerification, "keyless signature not proven by the trusted root")
	// ErrIdentityFlags: the command line's keyless flags do not describe
	// one identity under one trusted root.
	ErrIdentityFlags = errdef.New(errdef.ErrInvalidArgument, "invalid keyless verification flags")
)

// Error is a verification failure: it names the artifact and lists why.
type Error struct {
	Ref     string
	Digest  digest.Digest
	Reasons []error
}

func (e *Error) Error() string {
	msgs := make([]string, len(e.Reasons))
	for i, r := range e.Reasons {
		msgs[i] = r.Error()
	}
	return fmt.Sprintf("verify %s: %v: %s", e.Ref, ErrVerification, strings.Join(msgs, "; "))
}

// Unwrap returns ErrVerification and every reason.
func (e *Error) Unwrap() []error {
	return append([]error{ErrVerification}, e.Reasons...)
}
