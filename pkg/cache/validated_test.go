package cache_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/addonpack/addonpack/pkg/cache"
)

// TestValidatedRecords: remembered build checks are sealed records like the
// others: believed only under the cache's own key, in a private cache.
func TestValidatedRecords(t *testing.T) {
	dir := t.TempDir()
	mine, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mine.WithRecordKey([]byte("0123456789abcdef0123456789abcdef"))
	if _, ok := mine.Validated("k1"); ok {
		t.Fatal("a record before any was written")
	}
	other, _ := cache.Open(dir)
	other.WithRecordKey([]byte("another key, not the user's one!"))
	other.RememberValidated("k1", []string{"evil.example.com/x:1"})
	if _, ok := mine.Validated("k1"); ok {
		t.Fatal("a record sealed with another key is believed")
	}
	images := []string{"example.com/a:1", "example.com/b@sha256:0123"}
	if err := mine.RememberValidated("k1", images); err != nil {
		t.Fatal(err)
	}
	if got, ok := mine.Validated("k1"); !ok || !slices.Equal(got, images) {
		t.Fatalf("own record: %q %v", got, ok)
	}
	if err := mine.RememberValidated("k2", nil); err != nil {
		t.Fatal(err)
	}
	if got, ok := mine.Validated("k2"); !ok || len(got) != 0 {
		t.Fatalf("a tree without images: %q %v", got, ok)
	}
	// A validated directory others can write makes the records untrusted.
	if err := os.Chmod(filepath.Join(dir, "validated"), 0o777); err != nil {
		t.Fatal(err)
	}
	shared, _ := cache.Open(dir)
	shared.WithRecordKey([]byte("0123456789abcdef0123456789abcdef"))
	if _, ok := shared.Validated("k1"); ok {
		t.Fatal("a record in a shared directory is believed")
	}
}
