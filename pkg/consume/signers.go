package consume

import (
	"context"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// LoadSigned is Load that also says who signed what it loaded: the digest
// is verified afresh — the verified-digest memo remembers that a digest
// passed, not who signed it, so it is not consulted; a pass is still
// recorded in it — and the signers of its valid signatures are returned
// (verify.Result.Signers). With InsecureSkipVerify, and Offline (where only
// the memo answers), there are none. It is what lock records
// (specs/stack.md section 4.8).
func (c *Consumer) LoadSigned(ctx context.Context, ref registry.Reference, name string) (*artifact.Loaded, []verify.Signer, error) {
	o := c.named(name)
	a, err := OpenReference(ref, o)
	if err != nil {
		return nil, nil, err
	}
	var signers []verify.Signer
	if o.Policy != nil && !o.Offline {
		a.gate = o.witness(ref, &signers)
	}
	l, err := a.Load(ctx)
	if err != nil {
		return nil, nil, err
	}
	return l, signers, nil
}

// witness is the check of a resolved digest of ref that verifies it
// afresh, records the pass in the memo and keeps its signers.
func (o Options) witness(ref registry.Reference, signers *[]verify.Signer) func(context.Context, ocispec.Descriptor) error {
	t := verify.Target{Client: o.Client, Ref: ref}
	return func(ctx context.Context, d ocispec.Descriptor) error {
		res, err := verify.Verify(ctx, t, d, o.Policy)
		if err != nil {
			return err
		}
		*signers = res.Signers()
		if m := o.memo(); m != nil {
			return m.MarkVerified(d.Digest, verify.MemoKey(o.Policy, ref))
		}
		return nil
	}
}
