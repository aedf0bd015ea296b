package verify_test

import (
	"context"
	"testing"
	"time"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// BenchmarkVerify measures verify.Verify of examples/hello on an in-process
// testregistry with one classic (cosign) signature and one SLSA v1
// provenance attestation, provenance required: listing the referrers/tags,
// fetching the signature and attestation manifests and blobs, checking both
// against the key and the provenance rules. Setup (build, push, sign,
// attest, policy) is not timed.
func BenchmarkVerify(b *testing.B) {
	for _, format := range []sign.Format{sign.FormatClassic, sign.FormatBundle} {
		b.Run(string(format), func(b *testing.B) {
			ctx := context.Background()
			reg := testregistry.New(b)
			c, err := registry.New(registry.Options{})
			if err != nil {
				b.Fatal(err)
			}
			store := memory.New()
			res, err := build.Build(ctx, testartifact.ExampleDir("hello"), store, build.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ref := registry.Reference{Registry: reg.Host(), Repository: "addons/hello", Tag: "0.1.0"}
			if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
				b.Fatal(err)
			}
			desc, err := c.Resolve(ctx, ref)
			if err != nil {
				b.Fatal(err)
			}
			signer, _, pubPath := testkey.New(b)
			t := sign.Target{Client: c, Ref: ref}
			if _, err := sign.Sign(ctx, t, desc, signer, sign.Options{Format: format}); err != nil {
				b.Fatal(err)
			}
			st, err := provenance.New(provenance.Facts{
				SubjectName: ref.Repo(), SubjectDigest: desc.Digest, AddonName: "hello", AddonVersion: "0.1.0",
				BuilderID: "https://ci.example/builder", StartedOn: time.Unix(0, 0), FinishedOn: time.Unix(1, 0),
			})
			if err != nil {
				b.Fatal(err)
			}
			raw, err := provenance.Marshal(st)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sign.Attest(ctx, t, desc, signer, raw, sign.Options{Format: format}); err != nil {
				b.Fatal(err)
			}
			p, err := verify.PolicyFromKeys(ctx, []string{pubPath}, verify.KeyOptions{})
			if err != nil {
				b.Fatal(err)
			}
			p = p.WithProvenance(verify.ProvenanceRules{Required: true})
			vt := verify.Target{Client: c, Ref: ref}
			b.ReportAllocs()
			for b.Loop() {
				r, err := verify.Verify(ctx, vt, desc, p)
				if err != nil || !r.Verified {
					b.Fatalf("%+v %v", r, err)
				}
			}
		})
	}
}
