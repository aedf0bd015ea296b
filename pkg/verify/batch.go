package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/addonpack/addonpack/pkg/registry"
)

// BatchOptions tune All.
type BatchOptions struct {
	// Concurrency bounds the references verified at once; 8 by default.
	Concurrency int
	// Memo, when set, answers digests that passed this policy within MaxAge
	// without fetching signatures, and records new successes.
	Memo   Memo
	MaxAge time.Duration
	// Only answers from Memo alone (MemoOptions.Only): offline, a digest
	// it does not remember fails with ErrNotRemembered.
	Only bool
	// Resolve, when set, resolves each reference instead of the client's
	// Resolve (a HEAD), and may return the manifest's bytes with it (one
	// GET, as a cache or artifact.ManifestResolver does): they must match
	// the descriptor, and are handed to Then unparsed, after verification.
	Resolve func(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, []byte, error)
	// Then, when set, runs on every digest that passed (remembered or
	// not), with the manifest bytes Resolve returned (nil if none); its
	// error fails the reference. The CLI checks there that the signed
	// add-on is the one the reference names.
	Then func(ctx context.Context, ref registry.Reference, desc ocispec.Descriptor, raw []byte) error
	// Sufficient verifies each reference for the decision alone
	// (MemoOptions.Sufficient).
	Sufficient bool
	// Progress, when set, is called with each reference's outcome as soon
	// as it is known (in the order they finish, possibly concurrently), for
	// a progress display; All still returns them all in order.
	Progress func(Outcome)
}

// Outcome is the verdict on one reference of a batch.
type Outcome struct {
	Reference string        `json:"reference"`
	Digest    digest.Digest `json:"digest,omitempty"`
	Verified  bool          `json:"verified"`
	// Cached is true when the verdict came from the Memo.
	Cached bool    `json:"cached"`
	Result *Result `json:"result,omitempty"`
	Err    error   `json:"-"`
	Error  string  `json:"error,omitempty"`
}

// OutcomeOf is the Outcome of one reference verified on its own: res (not
// nil) and err as consume.Verify returns them. A remembered pass
// (res.Cached) carries no Result, as in a batch: nothing was examined.
func OutcomeOf(ref string, res *Result, err error) Outcome {
	o := Outcome{Reference: ref, Digest: res.Digest, Verified: err == nil && res.Verified, Cached: res.Cached, Result: res}
	if res.Cached {
		o.Result = nil
	}
	if err != nil {
		o.Error = err.Error()
	}
	return o
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
	var g errgroup.Group
	g.SetLimit(o.Concurrency)
	for i, ref := range refs {
		g.Go(func() error {
			out[i] = one(ctx, c, ref, p, pd, o)
			if o.Progress != nil {
				o.Progress(out[i])
			}
			return nil // each reference's outcome is its own
		})
	}
	g.Wait()
	return out
}

func one(ctx context.Context, c *registry.Client, ref registry.Reference, p *Policy, pd string, o BatchOptions) Outcome {
	oc := Outcome{Reference: ref.String()}
	fail := func(err error) Outcome {
		oc.Err, oc.Error = err, err.Error()
		return oc
	}
	var (
		desc ocispec.Descriptor
		raw  []byte
		err  error
	)
	if o.Resolve != nil {
		desc, raw, err = o.Resolve(ctx, ref)
	} else {
		desc, err = c.Resolve(ctx, ref)
	}
	if err != nil {
		return fail(c.ExplainNotFound(ctx, ref, err))
	}
	oc.Digest = desc.Digest
	res, cached, err := remembered(ctx, Target{Client: c, Ref: ref}, desc, p, pd, MemoOptions{Memo: o.Memo, MaxAge: o.MaxAge, Only: o.Only, Sufficient: o.Sufficient})
	oc.Result = res
	if err != nil {
		return fail(err)
	}
	oc.Verified, oc.Cached = true, cached
	if o.Then != nil {
		if err := o.Then(ctx, ref, desc, raw); err != nil {
			oc.Verified = false
			return fail(err)
		}
	}
	return oc
}
