package consume_test

import (
	"context"
	"errors"
	"testing"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// TestVerify: good signatures on the add-on the reference names pass; good
// signatures on another add-on (a repository named otherwise) fail on the
// claim; in a batch, a second pass is answered from the cache.
func TestVerify(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	s, _, _ := testkey.New(t)
	good := testartifact.PushHello(t, reg.Host(), "addons/hello", "0.1.0", build.Options{})
	renamed := testartifact.PushHello(t, reg.Host(), "addons/other", "0.1.0", build.Options{})
	testartifact.Sign(t, good, s)
	testartifact.Sign(t, renamed, s)
	o := consume.Options{Client: good.Client, Cache: openCache(t), Policy: testartifact.Policy(t, verify.KeyOptions{}, s)}

	res, err := consume.Verify(ctx, good.Ref, o)
	if err != nil || !res.Verified {
		t.Fatalf("good: %v, %+v", err, res)
	}
	res, err = consume.Verify(ctx, renamed.Ref, o)
	if !errors.Is(err, spec.ErrClaim) || res == nil || res.Verified || len(res.Reasons) == 0 {
		t.Fatalf("renamed: got %v and %+v, want spec.ErrClaim and a result not verified", err, res)
	}
	withName := o
	withName.Name = "hello"
	if res, err := consume.Verify(ctx, renamed.Ref, withName); err != nil || !res.Verified {
		t.Fatalf("renamed with Name hello: %v", err)
	}

	refs := []registry.Reference{good.Ref, renamed.Ref}
	for i, wantCached := range []bool{false, true} {
		out, err := consume.VerifyAll(ctx, refs, o, nil)
		if err != nil || len(out) != 2 {
			t.Fatalf("batch %d: %v, %d outcomes", i, err, len(out))
		}
		if !out[0].Verified || out[0].Cached != wantCached {
			t.Errorf("batch %d, good: verified %v cached %v, want cached %v (%v)", i, out[0].Verified, out[0].Cached, wantCached, out[0].Err)
		}
		if out[1].Verified || !errors.Is(out[1].Err, spec.ErrClaim) {
			t.Errorf("batch %d, renamed: verified %v, err %v; want spec.ErrClaim", i, out[1].Verified, out[1].Err)
		}
	}

	if _, err := consume.Verify(ctx, good.Ref, consume.Options{Client: good.Client, InsecureSkipVerify: true}); !errors.Is(err, consume.ErrOptions) {
		t.Errorf("verify without a policy: got %v, want ErrOptions", err)
	}
}
