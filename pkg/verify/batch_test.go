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
	var mu sync.Mutex
	told := map[bool]int{} // verified → outcomes told to Progress
	progress := func(o verify.Outcome) { mu.Lock(); told[o.Verified]++; mu.Unlock() }
	out := verify.All(context.Background(), c, refs, p, verify.BatchOptions{Concurrency: 2, Memo: m, MaxAge: time.Hour, Progress: progress})
	if len(out) != 3 || !out[0].Verified || out[1].Verified || !errors.Is(out[1].Err, registry.ErrNotFound) || !out[2].Verified {
		t.Fatalf("outcomes: %+v", out)
	}
	if told[true] != 2 || told[false] != 1 {
		t.Errorf("Progress told %d passes and %d failures, want 2 and 1", told[true], told[false])
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

// agedMemo remembers when each pass was recorded and honours maxAge, as
// pkg/cache does.
type agedMemo struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (m *agedMemo) Verified(d digest.Digest, policy string, maxAge time.Duration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	at, ok := m.at[d.String()+policy]
	return ok && time.Since(at) <= maxAge
}

func (m *agedMemo) MarkVerified(d digest.Digest, policy string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.at[d.String()+policy] = time.Now()
	return nil
}

// TestAllCachedPassOutlivedByKey: a pass recorded while the key was valid
// does not stand once the key has expired: the reference is verified again
// and fails on the key's window.
func TestAllCachedPassOutlivedByKey(t *testing.T) {
	e := pushHello(t, testregistry.New(t).Host(), "addons/hello", "0.1.0", "")
	k := newKey(t)
	if _, err := sign.Sign(context.Background(), e.target, e.desc, k, sign.Options{}); err != nil {
		t.Fatal(err)
	}
	p := policyFor(t, k)
	expires := time.Now().Add(300 * time.Millisecond)
	p.Scopes[0].Keys[0].NotAfter = &expires
	m := &agedMemo{at: map[string]time.Time{}}
	opts := verify.BatchOptions{Memo: m, MaxAge: time.Hour}
	if out := verify.All(context.Background(), e.client, []registry.Reference{e.ref}, p, opts); !out[0].Verified {
		t.Fatalf("before expiry: %+v", out[0])
	}
	if out := verify.All(context.Background(), e.client, []registry.Reference{e.ref}, p, opts); !out[0].Cached {
		t.Fatalf("before expiry, again: not answered from the memo: %+v", out[0])
	}
	time.Sleep(time.Until(expires) + 100*time.Millisecond)
	out := verify.All(context.Background(), e.client, []registry.Reference{e.ref}, p, opts)
	if out[0].Verified || out[0].Cached || !errors.Is(out[0].Err, verify.ErrKeyWindow) {
		t.Fatalf("after expiry: %+v, want a fresh verification failing with ErrKeyWindow", out[0])
	}
}
