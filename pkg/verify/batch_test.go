package verify_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

type memo struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (m *memo) Verified(d digest.Digest, policy string, _ time.Duration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen[d.String()+policy]
}

func (m *memo) MarkVerified(d digest.Digest, policy string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen[d.String()+policy] = true
	return nil
}

// TestAll: outcomes keep the order of the references, a missing reference
// fails alone, and the memo answers the second round.
func TestAll(t *testing.T) {
	e := pushHello(t, testregistry.New(t).Host(), "addons/hello", "0.1.0", "")
	k := newKey(t)
	if _, err := sign.Sign(context.Background(), e.target, e.desc, k, sign.Options{}); err != nil {
		t.Fatal(err)
	}
	c, ref, desc, p := e.client, e.ref, e.desc, policyFor(t, k)
	missing := ref
	missing.Tag = "missing"
	refs := []registry.Reference{ref, missing, ref}
	m := &memo{seen: map[string]bool{}}
	out := verify.All(context.Background(), c, refs, p, verify.BatchOptions{Concurrency: 2, Memo: m, MaxAge: time.Hour})
	if len(out) != 3 || !out[0].Verified || out[1].Verified || !errors.Is(out[1].Err, registry.ErrNotFound) || !out[2].Verified {
		t.Fatalf("outcomes: %+v", out)
	}
	if out[0].Digest != desc.Digest {
		t.Fatalf("digest %s, want %s", out[0].Digest, desc.Digest)
	}
	again := verify.All(context.Background(), c, refs[:1], p, verify.BatchOptions{Memo: m})
	if !again[0].Verified || !again[0].Cached {
		t.Fatalf("second round not answered from the memo: %+v", again[0])
	}
}

// TestAllWithoutPolicy fails every reference instead of verifying none.
func TestAllWithoutPolicy(t *testing.T) {
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	refs := []registry.Reference{{Registry: "127.0.0.1:1", Repository: "a", Tag: "1"}, {Registry: "127.0.0.1:1", Repository: "b", Tag: "1"}}
	for _, o := range verify.All(context.Background(), c, refs, nil, verify.BatchOptions{}) {
		if o.Verified || !errors.Is(o.Err, verify.ErrPolicy) {
			t.Fatalf("%+v", o)
		}
	}
}
