package verify

import (
	"errors"
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
)

// ErrVerification is matched by every verification failure (errors.Is).
// The specific reasons below are matched too.
var ErrVerification = errors.New("verification failed")

// Specific reasons, each wrapped (with the digest, key and location) in the
// *Error that Verify returns.
var (
	ErrUnsigned      = errors.New("no signatures found")
	ErrUntrusted     = errors.New("signature not made by a trusted key")
	ErrDigestClaim   = errors.New("signed claim names another digest")
	ErrPayloadType   = errors.New("wrong payload type")
	ErrPredicateType = errors.New("wrong predicate type")
	ErrKeyWindow     = errors.New("key outside its validity window")
	ErrThreshold     = errors.New("signature threshold not met")
	ErrTooMany       = errors.New("too many signatures or attestations")
	ErrBlobTooLarge  = errors.New("signature or attestation blob too large")
	ErrMalformed     = errors.New("malformed signature or attestation")
	ErrProvenance    = errors.New("provenance requirement not met")
	ErrNoPolicy      = errors.New("no policy applies")
	ErrPolicy        = errors.New("invalid policy")
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
