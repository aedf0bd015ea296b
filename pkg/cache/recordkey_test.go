package cache_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/cache"
)

// TestWithDefaultRecordKey: with a configuration directory, records sealed
// by one run are trusted by the next (the key is kept outside the cache, made
// 0600 on first use); without one, each run's key is its own, so a record
// written by another run is never trusted.
func TestWithDefaultRecordKey(t *testing.T) {
	dir := t.TempDir()
	d := digest.FromString("addon")
	open := func(env map[string]string) *cache.Cache {
		t.Helper()
		c, err := cache.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return c.WithDefaultRecordKey(func(k string) string { return env[k] })
	}

	home := t.TempDir()
	withHome := map[string]string{"HOME": home}
	if err := open(withHome).MarkVerified(d, "policy"); err != nil {
		t.Fatal(err)
	}
	if !open(withHome).Verified(d, "policy", time.Hour) {
		t.Error("a record sealed with the user's key is not trusted by the next run")
	}
	fi, err := os.Stat(filepath.Join(home, ".config", "addonpack", "cache-record.key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record key: %v %v, want a 0600 file", fi, err)
	}

	none := map[string]string{}
	if open(none).Verified(d, "policy", time.Hour) {
		t.Error("a run without a record key trusted a record sealed with another key")
	}
	ephemeral := open(none)
	if err := ephemeral.MarkVerified(d, "other"); err != nil || !ephemeral.Verified(d, "other", time.Hour) {
		t.Fatalf("an ephemeral key does not keep records within its run: %v", err)
	}
	if open(none).Verified(d, "other", time.Hour) {
		t.Error("a record sealed with an ephemeral key is trusted by another run")
	}
}
