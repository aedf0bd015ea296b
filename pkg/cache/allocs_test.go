package cache_test

import (
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/cache"
)

// TestVerifiedHitAllocs bounds the allocations of a verified-digest cache
// hit, what a warm verify or pull asks once per reference: a record read,
// its MAC checked, its time parsed.
func TestVerifiedHitAllocs(t *testing.T) {
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c = c.WithRecordKey([]byte("0123456789abcdef0123456789abcdef"))
	dg := digest.FromString("an add-on")
	if err := c.MarkVerified(dg, "sha256:policy"); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if !c.Verified(dg, "sha256:policy", 0) {
			t.Fatal("not a hit")
		}
	})
	t.Logf("%.0f allocations per Verified hit", allocs)
	// 24 (27 with -race) today: the bound leaves room for the race detector and a Go
	// release, not for a second read of the record.
	if allocs > 32 {
		t.Errorf("%.0f allocations per Verified hit, want at most 32", allocs)
	}
}
