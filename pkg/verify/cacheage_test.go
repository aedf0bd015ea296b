package verify_test

import (
	"math"
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestCachedPassAge: a remembered pass stands for at most maxAge, and never
// from before a key of the scope expired; other scopes' keys and keys not
// yet valid do not shorten it.
func TestCachedPassAge(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	ref, _ := registry.ParseReference("r.example/team/app:1")
	p := &verify.Policy{Scopes: []verify.Scope{
		{Prefix: "r.example/team", Keys: []verify.Key{{Name: "old", NotAfter: at(-10 * time.Minute)}, {Name: "current"}, {Name: "next", NotBefore: at(5 * time.Minute)}}},
		{Prefix: "r.example/other", Keys: []verify.Key{{Name: "gone", NotAfter: at(-time.Minute)}}},
	}}
	tests := []struct {
		name   string
		now    time.Time
		maxAge time.Duration
		want   time.Duration
	}{
		{"a key expired 10 minutes ago", now, time.Hour, 10 * time.Minute},
		{"maxAge shorter than that", now, 5 * time.Minute, 5 * time.Minute},
		{"no limit of its own", now, 0, 10 * time.Minute},
		{"before the key expired", now.Add(-20 * time.Minute), time.Hour, time.Hour},
		{"the moment it expires", now.Add(-10 * time.Minute), time.Hour, 0},
	}
	for _, tt := range tests {
		if got := p.CachedPassAge(ref, tt.now, tt.maxAge); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := p.CachedPassAge(ref, now.Add(-20*time.Minute), 0); got != math.MaxInt64 {
		t.Errorf("no expiry, no limit: %v", got)
	}
	other, _ := registry.ParseReference("elsewhere.example/x:1")
	if got := p.CachedPassAge(other, now, time.Hour); got != 0 {
		t.Errorf("a reference no scope covers: %v, want 0", got)
	}
}
