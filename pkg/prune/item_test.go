package prune_test

import (
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/prune"
)

// TestItemString: a plan line says the kind, the digest, the tags, the
// artifact type and what the item goes with.
func TestItemString(t *testing.T) {
	d := digest.FromString("x")
	for _, tc := range []struct {
		name string
		it   prune.Item
		want string
	}{
		{"release", prune.Item{Kind: prune.KindRelease, Digest: d, Tags: []string{"0.1.0"}}, "release  " + d.String() + " 0.1.0"},
		{"untag", prune.Item{Kind: prune.KindUntag, Digest: d, Tags: []string{"a", "b"}, Release: "0.1.0"}, "untag    " + d.String() + " a,b"},
		{"referrer of a release", prune.Item{Kind: "referrer", Digest: d, ArtifactType: "application/vnd.dev.sigstore.bundle.v0.3+json", Release: "0.1.0"},
			"referrer " + d.String() + " (application/vnd.dev.sigstore.bundle.v0.3+json)  of release 0.1.0"},
		{"orphan", prune.Item{Kind: "signature", Digest: d, Tags: []string{"sha256-x.sig"}, Orphan: true}, "signature " + d.String() + " sha256-x.sig  left over: its subject is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.it.String(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
