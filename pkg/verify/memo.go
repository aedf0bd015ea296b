package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

// Memo remembers digests that passed a policy (pkg/cache implements it).
type Memo interface {
	Verified(d digest.Digest, policy string, maxAge time.Duration) bool
	MarkVerified(d digest.Digest, policy string) error
}

// MemoKey is what a remembered verification is keyed by, with the digest:
// the policy and the repository it was verified in, since a policy's scopes
// give different repositories different rules.
func MemoKey(p *Policy, ref registry.Reference) string {
	return memoKey(p.Digest(), ref)
}

func memoKey(policyDigest string, ref registry.Reference) string {
	return policyDigest + " " + ref.Repo()
}

// ErrNotRemembered is returned by Remembered with MemoOptions.Only when the
// memo holds no pass of the digest under the policy.
var ErrNotRemembered = errdef.New(errdef.ErrNotFound, "no cached verification under this policy")

// MemoOptions say how a memo of verified digests stands in for verification.
type MemoOptions struct {
	// Memo answers digests that passed the same policy in the same
	// repository within MaxAge, and records new passes. Nil: every digest is
	// verified and nothing is remembered.
	Memo Memo
	// MaxAge is how long a remembered pass stands, shortened further by the
	// policy's key windows (Policy.CachedPassAge); 0 sets no limit of its own.
	MaxAge time.Duration
	// Only answers from the memo alone: a digest it does not remember fails
	// with ErrNotRemembered instead of being verified (offline use, where
	// signatures cannot be fetched).
	Only bool
	// Sufficient verifies for the decision alone: the bundle referrers
	// are examined first and cosign's classic .sig and .att tags only if
	// those do not pass (a scope with attestation rules examines
	// everything). The Result lists the candidates examined.
	Sufficient bool
}

// Remembered verifies subject under p as Verify does, unless o.Memo
// remembers that this digest passed p in t's repository recently enough:
// then cached is true and no signature is fetched (the Result is nil). A
// new pass is recorded in the memo. It is the one place the verified-digest
// memo is consulted, for single verifications and batches alike.
func Remembered(ctx context.Context, t Target, subject ocispec.Descriptor, p *Policy, o MemoOptions) (res *Result, cached bool, err error) {
	if p == nil {
		return nil, false, fmt.Errorf("verify: %w: no policy", ErrPolicy)
	}
	return remembered(ctx, t, subject, p, p.Digest(), o)
}

// remembered is Remembered with the policy's digest computed once by the
// caller.
func remembered(ctx context.Context, t Target, subject ocispec.Descriptor, p *Policy, policyDigest string, o MemoOptions) (*Result, bool, error) {
	key := memoKey(policyDigest, t.Ref)
	if age := p.CachedPassAge(t.Ref, time.Now(), o.MaxAge); o.Memo != nil && age > 0 && o.Memo.Verified(subject.Digest, key, age) {
		return nil, true, nil
	}
	if o.Only {
		return nil, false, fmt.Errorf("%s: %w", t.Ref.WithDigest(subject.Digest), ErrNotRemembered)
	}
	res, err := verify(ctx, t, subject, p, policyDigest, options{now: time.Now(), sufficient: o.Sufficient})
	if err != nil {
		return res, false, err
	}
	if o.Memo != nil {
		if err := o.Memo.MarkVerified(subject.Digest, key); err != nil {
			return res, false, err
		}
	}
	return res, false, nil
}
