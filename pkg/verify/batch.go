package verify

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

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

// BatchOptions tune All.
type BatchOptions struct {
	// Concurrency bounds the references verified at once; 8 by default.
	Concurrency int
	// Memo, when set, answers digests that passed this policy within MaxAge
	// without fetching signatures, and records new successes.
	Memo   Memo
	MaxAge time.Duration
	// Then, when set, runs on every digest that passed (remembered or
	// not); its error fails the reference. The CLI checks there that the
	// signed add-on is the one the reference names.
	Then func(ctx context.Context, ref registry.Reference, desc ocispec.Descriptor) error
}

// Outcome is the verdict on one reference of a batch.
type Outcome struct {
	Reference string        `json:"reference"`
	Digest    digest.Digest `json:"digest,omitempty"`
	Verified  bool          `json:"verified"`
	// Cached is true when the verdict came from the Memo.
	Cached bool    `json:"cached,omitempty"`
	Result *Result `json:"result,omitempty"`
	Err    error   `json:"-"`
	Error  string  `json:"error,omitempty"`
}

// All resolves and verifies many references under one policy, sharing the
// client (connections, tokens) and the policy, with bounded concurrency. The
// outcomes are in the order of refs.
func All(ctx context.Context, c *registry.Client, refs []registry.Reference, p *Policy, o BatchOptions) []Outcome {
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	out := make([]Outcome, len(refs))
	if p == nil {
		err := fmt.Errorf("verify: %w: no policy", ErrPolicy)
		for i, ref := range refs {
			out[i] = Outcome{Reference: ref.String(), Err: err, Error: err.Error()}
		}
		return out
	}
	pd := p.Digest() // once: the policy is immutable
	sem := make(chan struct{}, o.Concurrency)
	var wg sync.WaitGroup
	for i, ref := range refs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = one(ctx, c, ref, p, pd, o)
		}()
	}
	wg.Wait()
	return out
}

func one(ctx context.Context, c *registry.Client, ref registry.Reference, p *Policy, pd string, o BatchOptions) Outcome {
	oc := Outcome{Reference: ref.String()}
	fail := func(err error) Outcome {
		oc.Err, oc.Error = err, err.Error()
		return oc
	}
	desc, err := c.Resolve(ctx, ref)
	if err != nil {
		return fail(c.ExplainNotFound(ctx, ref, err))
	}
	oc.Digest = desc.Digest
	key := memoKey(pd, ref)
	then := func() Outcome {
		if o.Then != nil {
			if err := o.Then(ctx, ref, desc); err != nil {
				oc.Verified = false
				return fail(err)
			}
		}
		return oc
	}
	if age := p.CachedPassAge(ref, time.Now(), o.MaxAge); o.Memo != nil && age > 0 && o.Memo.Verified(desc.Digest, key, age) {
		oc.Verified, oc.Cached = true, true
		return then()
	}
	res, err := verify(ctx, Target{Client: c, Ref: ref}, desc, p, pd, options{now: time.Now()})
	oc.Result = res
	if err != nil {
		return fail(err)
	}
	oc.Verified = true
	if o.Memo != nil {
		if err := o.Memo.MarkVerified(desc.Digest, key); err != nil {
			return fail(err)
		}
	}
	return then()
}
