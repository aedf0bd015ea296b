package prune_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/pkg/prune"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

// TestKeepNewest: --keep 2 over four signed and attested releases leaves
// exactly the two newest, verifying, and nothing of the others: no tag,
// manifest, classic tag, referrer or referrers index. A dry run (the plan
// alone) changes nothing.
func TestKeepNewest(t *testing.T) {
	for _, reg := range realregistry.Both() {
		t.Run(reg.Name, func(t *testing.T) {
			ctx := context.Background()
			// 0.10.0 > 0.9.0 by semver, not by name; 0.10.0-rc.1 < 0.10.0.
			f := publish(t, reg.Start(t), "0.9.0", "0.10.0-rc.1", "0.10.0", "0.2.0")
			before := f.tags(t)
			p := plan(t, f, prune.Options{Keep: 2})
			if got := f.tags(t); !slices.Equal(got, before) {
				t.Fatalf("planning changed the tags:\n%v\nwant\n%v", got, before)
			}
			var kept []string
			for _, k := range p.Keep {
				kept = append(kept, k.Tag)
			}
			if want := []string{"0.10.0", "0.10.0-rc.1"}; !slices.Equal(kept, want) {
				t.Fatalf("kept %v, want %v", kept, want)
			}
			releases := map[string]bool{}
			for _, it := range p.Delete {
				if it.Kind == prune.KindRelease {
					releases[it.Release] = true
				}
			}
			if len(releases) != 2 || !releases["0.9.0"] || !releases["0.2.0"] {
				t.Fatalf("plan deletes releases %v, want 0.9.0 and 0.2.0:\n%+v", releases, p.Delete)
			}
			res, err := prune.Execute(ctx, f.c, f.repo, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Deleted) != len(p.Delete) {
				t.Errorf("deleted %d of %d items", len(res.Deleted), len(p.Delete))
			}
			f.verifies(t, "0.10.0")
			f.verifies(t, "0.10.0-rc.1")
			f.gone(t, f.digests["0.9.0"].Digest)
			f.gone(t, f.digests["0.2.0"].Digest)
			for _, tag := range f.tags(t) {
				if tag == "0.10.0" || tag == "0.10.0-rc.1" {
					continue
				}
				if !belongsTo(tag, f.digests["0.10.0"].Digest, f.digests["0.10.0-rc.1"].Digest) {
					t.Errorf("tag %s left behind", tag)
				}
			}
			// A second run finds nothing to do.
			if again := plan(t, f, prune.Options{Keep: 2}); len(again.Delete) != 0 {
				t.Errorf("second run plans %+v", again.Delete)
			}
		})
	}
}

// belongsTo reports whether tag vouches for one of ds (sha256-<hex>[.suffix]).
func belongsTo(tag string, ds ...digest.Digest) bool {
	for _, d := range ds {
		if len(tag) >= 71 && tag[:7] == "sha256-" && tag[7:71] == d.Encoded() {
			return true
		}
	}
	return false
}

// TestSharedAndPinned: a release whose digest another kept tag points at,
// and one a protect file pins, keep their manifest and everything under it;
// only their release tag goes, where the registry can delete a tag alone.
func TestSharedAndPinned(t *testing.T) {
	for _, reg := range realregistry.Both() {
		t.Run(reg.Name, func(t *testing.T) {
			ctx := context.Background()
			f := publish(t, reg.Start(t), "0.1.0", "0.2.0", "0.3.0", "0.4.0")
			f.tag(t, "stable", "0.2.0")
			lock := filepath.Join(t.TempDir(), "pins.txt")
			if err := os.WriteFile(lock, []byte("# pinned by a stack\n"+f.digests["0.1.0"].Digest.String()+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			pins, err := prune.LoadPins(lock)
			if err != nil {
				t.Fatal(err)
			}
			p := plan(t, f, prune.Options{Keep: 1, Protect: pins})
			for _, it := range p.Delete {
				if it.Kind != prune.KindUntag && (it.Digest == f.digests["0.1.0"].Digest || it.Digest == f.digests["0.2.0"].Digest) {
					t.Errorf("plan deletes protected %s (%s)", it.Digest, it.Kind)
				}
			}
			if len(p.Skipped) != 2 {
				t.Errorf("skipped %+v, want 0.1.0 and 0.2.0", p.Skipped)
			}
			res, err := prune.Execute(ctx, f.c, f.repo, p)
			if err != nil {
				t.Fatal(err)
			}
			f.gone(t, f.digests["0.3.0"].Digest)
			f.verifies(t, "0.4.0")
			f.verifies(t, "stable")
			pinned := f.repo.WithDigest(f.digests["0.1.0"].Digest)
			f.verifiesRef(t, pinned, f.digests["0.1.0"])
			tags := f.tags(t)
			for _, v := range []string{"0.1.0", "0.2.0"} {
				untagged := !slices.Contains(tags, v)
				skipped := slices.ContainsFunc(res.Skipped, func(s prune.Skip) bool { return s.Tag == v })
				if untagged == skipped {
					t.Errorf("release tag %s: untagged %v, reported skipped %v (want exactly one)", v, untagged, skipped)
				}
			}
		})
	}
}

// TestNoDeletes: on a registry that refuses DELETE, prune fails with
// ErrDeleteUnsupported and nothing changes.
func TestNoDeletes(t *testing.T) {
	regs := []realregistry.Registry{
		{Name: "testregistry", Start: func(t testing.TB) string { return testregistry.New(t, testregistry.WithoutDeletes()).Host() }},
		{Name: "distribution", Start: func(t testing.TB) string { return realregistry.Start(t, realregistry.Options{NoDelete: true}) }},
	}
	for _, reg := range regs {
		t.Run(reg.Name, func(t *testing.T) {
			f := publish(t, reg.Start(t), "0.1.0", "0.2.0")
			before := f.tags(t)
			p := plan(t, f, prune.Options{Keep: 1})
			res, err := prune.Execute(context.Background(), f.c, f.repo, p)
			if !errors.Is(err, registry.ErrDeleteUnsupported) {
				t.Fatalf("err = %v, want ErrDeleteUnsupported", err)
			}
			if len(res.Deleted) != 0 {
				t.Errorf("deleted %+v", res.Deleted)
			}
			if got := f.tags(t); !slices.Equal(got, before) {
				t.Errorf("tags changed:\n%v\nwant\n%v", got, before)
			}
			f.verifies(t, "0.1.0")
		})
	}
}
