package consume

import (
	"context"
	"fmt"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Verify resolves ref once and verifies its digest under o.Policy, always
// afresh (the memo is neither consulted nor written: the Result lists every
// candidate and why it failed; offline, it fails as a miss of the cache); then, when the signatures are good, loads
// the signed manifest and config by that digest and checks that they hold
// the add-on ref names (verify.Claim). A claim that fails turns the Result
// to not verified with the claim's error as a reason. The Result is nil
// when ref could not be resolved or verification could not run.
func Verify(ctx context.Context, ref registry.Reference, o Options) (*verify.Result, error) {
	return verifyOne(ctx, ref, o, verify.MemoOptions{Only: o.Offline})
}

// VerifyRemembered is Verify with o.Cache as the verified-digest memo, as
// VerifyAll uses it: a digest that passed o.Policy in ref's repository
// within VerifiedTTL is answered without fetching signatures (the Result is
// then Cached, with no candidates), and a digest verified afresh is
// recorded. Either way the signed config is read (from the cache when it
// holds it) and must hold the add-on ref names. It verifies for the
// decision (verify.MemoOptions.Sufficient): the Result lists the
// candidates examined, which may leave out cosign's classic tags when the
// bundle referrers pass.
func VerifyRemembered(ctx context.Context, ref registry.Reference, o Options) (*verify.Result, error) {
	return verifyOne(ctx, ref, o, verify.MemoOptions{Memo: o.memo(), MaxAge: o.ttl(), Only: o.Offline, Sufficient: true})
}

// VerifyOne is Verify when afresh is set (every candidate examined and
// listed), else VerifyRemembered.
func VerifyOne(ctx context.Context, ref registry.Reference, o Options, afresh bool) (*verify.Result, error) {
	if afresh {
		return Verify(ctx, ref, o)
	}
	return VerifyRemembered(ctx, ref, o)
}

func verifyOne(ctx context.Context, ref registry.Reference, o Options, mo verify.MemoOptions) (*verify.Result, error) {
	if err := o.needPolicy(ref); err != nil {
		return nil, err
	}
	o.warnAgeing()
	desc, raw, err := o.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	res, cached, err := verify.Remembered(ctx, verify.Target{Client: o.Client, Ref: ref}, desc, o.Policy, mo)
	err = offlineErr(err)
	if cached {
		res = verify.CachedResult(ref, desc.Digest, o.Policy)
	}
	if res == nil || err != nil {
		return res, err
	}
	if err := o.bound(ctx, ref, desc, raw); err != nil {
		res.Verified, res.Reasons = false, append(res.Reasons, err.Error())
		return res, err
	}
	return res, nil
}

// VerifyAll resolves and verifies many references under o.Policy, sharing
// the client and the policy, with bounded concurrency (verify.All): a
// digest that passed the same policy in the same repository within
// VerifiedTTL is answered from o.Cache (offline, only from there), and every digest that passed must
// hold the add-on its reference names. The outcomes are in the order of
// refs; an error is returned only for options that cannot work. progress,
// when not nil, is called with each outcome as soon as it is known
// (verify.BatchOptions.Progress).
func VerifyAll(ctx context.Context, refs []registry.Reference, o Options, progress func(verify.Outcome)) ([]verify.Outcome, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	if err := o.needPolicy(refs[0]); err != nil {
		return nil, err
	}
	o.warnAgeing()
	bo := verify.BatchOptions{Memo: o.memo(), MaxAge: o.ttl(), Only: o.Offline, Sufficient: true, Resolve: o.resolve, Then: o.bound, Progress: progress}
	out := verify.All(ctx, o.Client, refs, o.Policy, bo)
	for i := range out {
		if out[i].Err != nil {
			out[i].Err = offlineErr(out[i].Err)
			out[i].Error = out[i].Err.Error()
		}
	}
	return out, nil
}

// warnAgeing warns about every part of a trusted root the policy pins that
// stops being valid within verify.AgeingWindow, or has stopped with nothing
// of its kind valid now (verify.Policy.Ageing): once per command, before
// the result, so that a root is renewed before keyless signatures fail.
func (o Options) warnAgeing() {
	if o.Warnings == nil {
		return
	}
	ageing, err := o.Policy.Ageing(time.Now())
	if err != nil { // the roots were read when the policy was built
		o.warnf("%v", err)
	}
	for _, a := range ageing {
		o.warnf("%s", a)
	}
}

// needPolicy refuses options that cannot verify a registry reference.
func (o Options) needPolicy(ref registry.Reference) error {
	if err := o.check(); err != nil {
		return err
	}
	switch {
	case o.Policy == nil:
		return fmt.Errorf("%w: %s: verification needs a policy", ErrOptions, ref)
	case o.Client == nil:
		return fmt.Errorf("%w: %s: no registry client", ErrOptions, ref)
	}
	return nil
}

// resolve resolves ref through o's source as a pull does: with one GET
// that also returns the manifest's bytes, held unparsed until the digest is
// verified so that bound needs no second request for them; or, when the
// cache holds the manifest ref last resolved to, with one HEAD (raw is nil
// and bound reads the manifest from the cache).
func (o Options) resolve(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, []byte, error) {
	src, err := o.remote(ref)
	if err != nil {
		return ocispec.Descriptor{}, nil, err
	}
	var (
		desc ocispec.Descriptor
		raw  []byte
	)
	if r, ok := src.(artifact.ManifestResolver); ok {
		desc, raw, err = r.ResolveManifest(ctx)
	} else {
		desc, err = src.Resolve(ctx)
	}
	if err != nil {
		return ocispec.Descriptor{}, nil, o.Client.ExplainNotFound(ctx, ref, err)
	}
	return desc, raw, nil
}

// bound loads the config blob of desc, a digest of ref that passed
// verification, through o's source and checks that it is the add-on ref
// names (specs/artifact.md section 11.6). desc is not verified again; raw,
// when not nil, is the manifest resolve returned with desc, checked against
// desc's size and digest before it is parsed.
func (o Options) bound(ctx context.Context, ref registry.Reference, desc ocispec.Descriptor, raw []byte) error {
	src, err := o.remote(ref)
	if err != nil {
		return err
	}
	m, err := artifact.LoadManifest(ctx, src, desc, raw)
	if err != nil {
		return err
	}
	claim := verify.Claim(ref, o.Name, o.Policy)
	_, err = loadConfig(ctx, src, m, PullOptions{Claim: &claim})
	return err
}
