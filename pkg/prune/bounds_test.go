package prune_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/prune"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

// TestPlanRequests: a plan reads the graph once. With kept releases'
// signatures arranged under old releases' tags (so that both walks meet
// them), no request is made twice and the total is at most one tag
// listing, one request per tag, one referrers listing per manifest, and one
// more for each pin (its lookup) and kept index (its content).
func TestPlanRequests(t *testing.T) {
	reg := testregistry.New(t)
	f := publish(t, reg.Host(), "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0")
	f.retag(t, vouchTag(f.digests["0.2.0"].Digest, "sig"), f.sig(t, "0.6.0"))
	f.retag(t, vouchTag(f.digests["0.1.0"].Digest, "att"), f.att(t, "0.5.0"))
	f.retag(t, "stable", f.digests["0.4.0"].Digest)
	f.index(t, "bundle", f.digests["0.4.0"].Digest, f.digests["0.1.0"].Digest)
	tags := f.tags(t)
	manifests, indexes := map[digest.Digest]bool{}, 0
	for _, tag := range tags {
		d := f.at(t, tag)
		if !manifests[d] && f.desc(t, d).MediaType == ocispec.MediaTypeImageIndex {
			indexes++
		}
		manifests[d] = true
	}
	for v := range f.digests {
		for _, b := range f.bundles(t, v) {
			manifests[b] = true
		}
	}
	pins := []digest.Digest{f.digests["0.3.0"].Digest}
	reg.ResetLog()
	p := plan(t, f, prune.Options{Keep: 2, Protect: pins})
	log := reg.Log()
	seen := map[string]bool{}
	for _, r := range log {
		key := r.Method + " " + r.Path + "?" + r.Query
		if seen[key] {
			t.Errorf("requested twice: %s", key)
		}
		seen[key] = true
	}
	if limit := 1 + len(tags) + len(manifests) + len(pins) + indexes; len(log) > limit || indexes != 1 {
		t.Errorf("%d requests for %d tags, %d manifests (%d indexes) and %d pins, want at most %d", len(log), len(tags), len(manifests), indexes, len(pins), limit)
	}
	if len(p.Skipped) < 3 {
		t.Errorf("skipped %+v, want the two shared signatures and the pinned release", p.Skipped)
	}
	t.Logf("%d requests for %d tags and %d manifests", len(log), len(tags), len(manifests))
}

// TestPlanBounds: a needed set or plan larger than the limits, or a kept
// index listing more than a manifest may, is refused before anything is
// deleted, with a message naming the limit or the index.
func TestPlanBounds(t *testing.T) {
	reg := testregistry.New(t)
	f := publish(t, reg.Host(), "0.1.0", "0.2.0")
	wide := f.index(t, "wide", f.digests["0.1.0"].Digest, f.digests["0.2.0"].Digest, f.sig(t, "0.1.0"))
	for _, tc := range []struct {
		name string
		opts prune.Options
		want error
		msg  string
	}{
		{"needed and planned manifests", prune.Options{Keep: 1, MaxManifests: 4}, prune.ErrTooMany, "more than 4 manifests"},
		{"manifests a kept index lists", prune.Options{Keep: 1, MaxReferrers: 2}, prune.ErrTooMany, wide.Digest.String()},
		{"referrers of a manifest", prune.Options{Keep: 1, MaxReferrers: 1}, prune.ErrTooMany, "more than 1 referrers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.tags(t)
			_, err := prune.NewPlan(context.Background(), f.c, f.repo, tc.opts)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v naming %q", err, tc.want, tc.msg)
			}
			if got := f.tags(t); !slices.Equal(got, before) {
				t.Errorf("tags changed: %v, want %v", got, before)
			}
			f.verifies(t, "0.1.0")
		})
	}
}

// cannedIndex serves body for every image index fetched.
type cannedIndex struct {
	*registry.Client
	body string
}

func (r cannedIndex) FetchManifest(context.Context, registry.Reference, ocispec.Descriptor) ([]byte, error) {
	return []byte(r.body), nil
}

// TestUnreadableIndex: a kept image index whose content cannot be read as
// one leaves what is needed unknown: the plan is refused (ErrIndex, exit 3),
// naming the index.
func TestUnreadableIndex(t *testing.T) {
	f := publish(t, testregistry.New(t).Host(), "0.1.0", "0.2.0")
	idx := f.index(t, "bundle", f.digests["0.1.0"].Digest)
	for _, body := range []string{`{`, `{"manifests": 3}`, `{"manifests": [{"digest": "sha256:short"}]}`} {
		_, err := prune.NewPlan(context.Background(), cannedIndex{f.c, body}, f.repo, prune.Options{Keep: 1})
		if !errors.Is(err, prune.ErrIndex) || !errors.Is(err, errdef.ErrInvalid) || !strings.Contains(err.Error(), idx.Digest.String()) {
			t.Errorf("%s: err = %v, want ErrIndex naming %s", body, err, idx.Digest)
		}
	}
}
