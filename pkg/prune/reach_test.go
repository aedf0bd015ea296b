package prune_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/pkg/prune"
)

// attack is one arrangement of tags by someone without a key, made so that
// an old release appears to own what a kept one needs.
type attack struct {
	name string
	// arrange re-points or pushes tags; it returns the extra tags it made
	// that name old versions (so the oracle counts them as doomed).
	arrange func(t *testing.T, f *fixture) (old []string)
	// pins are the releases whose digests the protect file pins.
	pins []string
	// needs are further manifests that must still verify, by digest
	// (what a kept index lists), beyond the kept release and the pins.
	needs func(t *testing.T, f *fixture) []digest.Digest
	// kept are extra tags that are kept (not semver).
	kept []string
	// tagSchemaOnly marks an arrangement that only registries without the
	// referrers API read: with the API, a referrers index tag is not a
	// listing (the index alone goes), so nothing is shared.
	tagSchemaOnly bool
}

// attacks are the shapes of issue 24, class 1. The repository holds 0.1.0,
// 0.2.0 and 0.3.0, signed and attested in both schemes; --keep 1 keeps 0.3.0.
var attacks = []attack{
	{name: "old .sig tag on the kept signature", arrange: func(t *testing.T, f *fixture) []string {
		f.retag(t, vouchTag(f.digests["0.2.0"].Digest, "sig"), f.sig(t, "0.3.0"))
		return nil
	}},
	{name: "old .att tag on the kept attestation", arrange: func(t *testing.T, f *fixture) []string {
		f.retag(t, vouchTag(f.digests["0.1.0"].Digest, "att"), f.att(t, "0.3.0"))
		return nil
	}},
	{name: "both old releases' classic tags on the kept ones", arrange: func(t *testing.T, f *fixture) []string {
		for _, v := range []string{"0.1.0", "0.2.0"} {
			f.retag(t, vouchTag(f.digests[v].Digest, "sig"), f.sig(t, "0.3.0"))
			f.retag(t, vouchTag(f.digests[v].Digest, "att"), f.att(t, "0.3.0"))
		}
		return nil
	}},
	{name: "old classic tags on the kept bundles", arrange: func(t *testing.T, f *fixture) []string {
		b := f.bundles(t, "0.3.0")
		f.retag(t, vouchTag(f.digests["0.2.0"].Digest, "sig"), b[0])
		f.retag(t, vouchTag(f.digests["0.2.0"].Digest, "sbom"), b[1])
		return nil
	}},
	{name: "old referrers index listing the kept bundles", tagSchemaOnly: true, arrange: func(t *testing.T, f *fixture) []string {
		f.index(t, vouchTag(f.digests["0.2.0"].Digest, ""), f.bundles(t, "0.3.0")...)
		return nil
	}},
	{name: "signature of an old signature on the kept signature", arrange: func(t *testing.T, f *fixture) []string {
		f.retag(t, vouchTag(f.sig(t, "0.2.0"), "sig"), f.sig(t, "0.3.0"))
		f.retag(t, vouchTag(f.bundles(t, "0.1.0")[0], "att"), f.att(t, "0.3.0"))
		return nil
	}},
	{name: "old index listing the kept manifest and signature", arrange: func(t *testing.T, f *fixture) []string {
		idx := f.index(t, "0.0.1", f.digests["0.3.0"].Digest, f.sig(t, "0.3.0"))
		f.retag(t, vouchTag(idx.Digest, "sig"), f.sig(t, "0.3.0"))
		return []string{"0.0.1"}
	}},
	{name: "kept manifest tagged with an old version", arrange: func(t *testing.T, f *fixture) []string {
		f.retag(t, "0.0.2", f.digests["0.3.0"].Digest)
		f.retag(t, "0.1.0", f.digests["0.3.0"].Digest)
		return []string{"0.0.2"}
	}},
	{name: "pinned release's signatures under an old release's tags", pins: []string{"0.1.0"}, arrange: func(t *testing.T, f *fixture) []string {
		f.retag(t, vouchTag(f.digests["0.2.0"].Digest, "sig"), f.sig(t, "0.1.0"))
		f.retag(t, vouchTag(f.digests["0.2.0"].Digest, "att"), f.att(t, "0.1.0"))
		return nil
	}},
	{name: "left-over tags of a missing manifest on the kept signatures", arrange: func(t *testing.T, f *fixture) []string {
		f.retag(t, vouchTag(digest.FromString("never pushed"), "sig"), f.sig(t, "0.3.0"))
		f.retag(t, vouchTag(digest.FromString("gone too"), "att"), f.att(t, "0.3.0"))
		return nil
	}},
	{name: "kept index holding an old release", kept: []string{"bundle"},
		needs: func(t *testing.T, f *fixture) []digest.Digest { return []digest.Digest{f.digests["0.1.0"].Digest} },
		arrange: func(t *testing.T, f *fixture) []string {
			f.index(t, "bundle", f.digests["0.1.0"].Digest)
			f.retag(t, vouchTag(f.digests["0.2.0"].Digest, "sig"), f.sig(t, "0.1.0"))
			return nil
		}},
}

// TestKeptStaysVerifiable: whatever the tags of old releases were made to
// point at, prune deletes nothing a kept release, a pinned digest or what a
// kept index lists needs, so each still verifies in both schemes; it deletes
// exactly what hangs below the old releases and is needed by none of them,
// and reports each shared manifest as skipped, naming what needs it.
func TestKeptStaysVerifiable(t *testing.T) {
	k := newKey(t)
	for _, reg := range realregistry.Both() {
		t.Run(reg.Name, func(t *testing.T) {
			for _, a := range attacks {
				t.Run(a.name, func(t *testing.T) {
					t.Parallel()
					// Distribution 2.8 has no referrers API.
					testAttack(t, reg, k, a, !a.tagSchemaOnly || reg.Name == "distribution")
				})
			}
		})
	}
}

// testAttack runs a against a fresh registry of kind reg; shares says the
// arrangement must share something with what is needed there.
func testAttack(t *testing.T, reg realregistry.Registry, k key, a attack, shares bool) {
	ctx := context.Background()
	f := publishWith(t, reg.Start(t), k, "0.1.0", "0.2.0", "0.3.0")
	oldTags := append([]string{"0.1.0", "0.2.0"}, a.arrange(t, f)...)
	var pins []digest.Digest
	for _, v := range a.pins {
		pins = append(pins, f.digests[v].Digest)
	}
	needs := append([]digest.Digest{f.digests["0.3.0"].Digest}, pins...)
	for _, k := range a.kept {
		needs = append(needs, f.at(t, k))
	}
	if a.needs != nil {
		needs = append(needs, a.needs(t, f)...)
	}
	// The oracle: what the needed manifests hang on, and what hangs below
	// the old tags and the left-over vouching tags, each read plainly.
	needed := map[digest.Digest]bool{}
	for _, d := range needs {
		f.below(t, f.desc(t, d), true, 0, nil, needed)
	}
	doomed := map[digest.Digest]bool{}
	for _, tag := range oldTags {
		if d := f.at(t, tag); d != "" {
			f.below(t, f.desc(t, d), false, 0, needed, doomed)
		}
	}
	for _, s := range f.orphanSubjects(t) {
		f.below(t, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: s}, false, 0, needed, doomed)
		delete(doomed, s)
	}
	want := map[digest.Digest]bool{}
	shared := 0
	for d := range doomed {
		if needed[d] {
			shared++
		} else {
			want[d] = true
		}
	}
	if (shared == 0) == shares || len(want) == 0 {
		t.Fatalf("the arrangement shares %d manifests with what is needed and leaves %d to delete: not the attack it claims", shared, len(want))
	}

	p := plan(t, f, prune.Options{Keep: 1, Protect: pins})
	if _, err := json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	for d := range doomed {
		if !needed[d] {
			continue
		}
		skipped := slices.ContainsFunc(p.Skipped, func(s prune.Skip) bool { return s.Digest == d && s.NeededBy != "" })
		if !skipped {
			t.Errorf("%s is needed and hangs below an old tag, but the plan does not report it skipped: %+v", d, p.Skipped)
		}
	}
	for _, s := range p.Skipped {
		if !needed[s.Digest] || s.Kind == "" || !strings.Contains(s.Reason, s.NeededBy) {
			t.Errorf("skip %+v: want a needed digest, its kind, and a reason naming what needs it", s)
		}
	}
	res, err := prune.Execute(ctx, f.c, f.repo, p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[digest.Digest]bool{}
	for _, it := range res.Deleted {
		if it.Kind != prune.KindUntag {
			got[it.Digest] = true
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("deleted %d manifests, want %d:\n got %v\nwant %v", len(got), len(want), slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	for d := range needed {
		if _, err := f.c.Resolve(ctx, f.repo.WithDigest(d)); err != nil {
			t.Errorf("needed manifest %s: %v", d, err)
		}
	}
	f.verifies(t, "0.3.0")
	for _, d := range needs[1:] {
		if desc := f.desc(t, d); desc.MediaType != ocispec.MediaTypeImageIndex {
			f.verifiesRef(t, f.repo.WithDigest(d), desc)
		}
	}
	// A second run deletes no manifest: what is left below old tags is
	// needed, and is reported again.
	for _, it := range plan(t, f, prune.Options{Keep: 1, Protect: pins}).Delete {
		if it.Kind != prune.KindUntag {
			t.Errorf("second run plans %+v", it)
		}
	}
}

// maxDepth is how deep the oracle follows what vouches for what (as prune
// and copy do).
const maxDepth = 4

// below adds d and what vouches for it (classic tags, referrers, the
// referrers index tag) and, with children, what an index lists, to into;
// it goes no further below what is in stop.
func (f *fixture) below(t *testing.T, d ocispec.Descriptor, children bool, depth int, stop, into map[digest.Digest]bool) {
	t.Helper()
	into[d.Digest] = true
	if depth == maxDepth || stop[d.Digest] {
		return
	}
	var next []ocispec.Descriptor
	if children && d.MediaType == ocispec.MediaTypeImageIndex {
		_, body, err := f.c.ResolveManifest(context.Background(), f.repo.WithDigest(d.Digest))
		if err != nil {
			t.Fatal(err)
		}
		var idx ocispec.Index
		if err := json.Unmarshal(body, &idx); err != nil {
			t.Fatal(err)
		}
		next = append(next, idx.Manifests...)
	}
	refs, _, err := f.c.Referrers(context.Background(), f.repo, d, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	next = append(next, refs...)
	for _, suffix := range []string{"", "sig", "att", "sbom"} {
		if v := f.at(t, vouchTag(d.Digest, suffix)); v != "" {
			next = append(next, f.desc(t, v))
		}
	}
	for _, n := range next {
		f.below(t, n, children, depth+1, stop, into)
	}
}

// orphanSubjects are the subjects of vouching tags that do not exist.
func (f *fixture) orphanSubjects(t *testing.T) []digest.Digest {
	t.Helper()
	var out []digest.Digest
	for _, tag := range f.tags(t) {
		if len(tag) < 71 || tag[:7] != "sha256-" {
			continue
		}
		s := digest.NewDigestFromEncoded(digest.SHA256, tag[7:71])
		if _, err := f.c.Resolve(context.Background(), f.repo.WithDigest(s)); err != nil && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
