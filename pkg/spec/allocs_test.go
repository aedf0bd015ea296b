package spec_test

import (
	"encoding/json"
	"testing"

	"github.com/addonpack/addonpack/pkg/spec"
)

// TestParseManifestAllocs bounds the allocations of parsing and checking a
// manifest, which every resolve, verify and pull does.
func TestParseManifestAllocs(t *testing.T) {
	data, err := json.Marshal(validManifest())
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := spec.ParseManifest(data, "localhost:5000/x@sha256:1"); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations per ParseManifest", allocs)
	// 24 (25 with -race) today: the bound leaves room for the race detector and a Go
	// release, not for a copy of the document or a second decode.
	if allocs > 30 {
		t.Errorf("%.0f allocations per ParseManifest, want at most 30", allocs)
	}
}
