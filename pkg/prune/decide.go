package prune

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/addonpack/addonpack/pkg/registry"
)

// planner holds what NewPlan has learnt of the repository.
type planner struct {
	r    Registry
	repo registry.Reference
	opts Options
	plan *Plan
	tags map[string]bool
	// known are digests seen to exist: tagged, or found in a walk.
	known map[digest.Digest]bool
	// planned are digests the plan deletes or skips.
	planned map[digest.Digest]bool
	// needed are the digests a kept tag or pin reaches (reach.go), never
	// deleted, with what needs them.
	needed map[digest.Digest]need
	// links memoises each manifest's edges (graph.go): read once a plan.
	mu    sync.Mutex
	links map[digest.Digest][]link
}

// group is one manifest to delete as a release, with its release tags.
type group struct {
	desc ocispec.Descriptor
	tags []string
}

// doomedTag is a release (or named) tag to delete and what it points at.
type doomedTag struct {
	tag  string
	desc ocispec.Descriptor
}

// decide sorts every non-vouching tag into kept and deleted and resolves
// them. It returns the tags to delete, oldest release first, and the roots
// of what is needed: the kept tags' manifests and the pins.
func (p *planner) decide(ctx context.Context, tags []string) ([]doomedTag, []root, error) {
	var rng *versionRange
	if p.opts.KeepRange != "" {
		var err error
		if rng, err = parseRange(p.opts.KeepRange); err != nil {
			return nil, nil, err
		}
	}
	named := map[string]bool{}
	for _, t := range p.opts.Tags {
		if !p.tags[t] {
			return nil, nil, fmt.Errorf("--tag %s: %w", p.repo.Repo()+":"+t, registry.ErrNotFound)
		}
		named[t] = true
	}
	byVersion := p.opts.Keep > 0 || rng != nil
	keep := map[string]string{} // tag -> reason
	var doomed []string         // oldest release first, then named others
	releases := releasesOf(tags)
	isRelease := map[string]bool{}
	for i, rel := range releases {
		isRelease[rel.tag] = true
		switch {
		case named[rel.tag]:
		case !byVersion:
			keep[rel.tag] = "not named"
		case i < p.opts.Keep:
			keep[rel.tag] = fmt.Sprintf("one of the %d newest versions", p.opts.Keep)
		case rng.contains(rel):
			keep[rel.tag] = "in --keep-range " + p.opts.KeepRange
		default:
			continue
		}
	}
	for i := len(releases) - 1; i >= 0; i-- {
		if _, ok := keep[releases[i].tag]; !ok {
			doomed = append(doomed, releases[i].tag)
		}
	}
	var all []string
	for _, t := range tags {
		if _, vouch := vouchSubject(t); vouch {
			continue
		}
		all = append(all, t)
		if isRelease[t] {
			continue
		}
		if named[t] {
			doomed = append(doomed, t)
		} else {
			keep[t] = "not a semver version"
		}
	}
	descs, err := p.resolveAll(ctx, all)
	if err != nil {
		return nil, nil, err
	}
	var roots []root
	for _, t := range all {
		p.known[descs[t].Digest] = true
		if reason, ok := keep[t]; ok {
			p.plan.Keep = append(p.plan.Keep, Kept{Tag: t, Digest: descs[t].Digest, Reason: reason})
			roots = append(roots, root{desc: descs[t], name: "kept tag " + t, reason: "kept tag " + t + " points at it"})
		}
	}
	for _, d := range p.opts.Protect {
		// The media type is learnt when it is walked (reach.go).
		roots = append(roots, root{desc: ocispec.Descriptor{Digest: d}, name: "pin " + d.String(), reason: "pinned by the protect file (pin " + d.String() + ")"})
	}
	out := make([]doomedTag, 0, len(doomed))
	for _, t := range doomed {
		out = append(out, doomedTag{tag: t, desc: descs[t]})
	}
	slices.SortStableFunc(p.plan.Keep, func(a, b Kept) int { return compareTags(releases, a.Tag, b.Tag) })
	return out, roots, nil
}

// group plans an untag for each doomed tag whose manifest is needed and
// groups the others by manifest, in the order of doomed.
func (p *planner) group(doomed []doomedTag) []group {
	var groups []group
	at := map[digest.Digest]int{}
	for _, t := range doomed {
		d := t.desc
		if n, ok := p.needed[d.Digest]; ok {
			p.plan.Delete = append(p.plan.Delete, Item{Kind: KindUntag, Digest: d.Digest, Tags: []string{t.tag}, Release: t.tag})
			p.plan.Skipped = append(p.plan.Skipped, Skip{Kind: KindRelease, Digest: d.Digest, Release: t.tag, NeededBy: n.root, Reason: n.reason})
			continue
		}
		if i, ok := at[d.Digest]; ok {
			groups[i].tags = append(groups[i].tags, t.tag)
			continue
		}
		at[d.Digest] = len(groups)
		groups = append(groups, group{desc: d, tags: []string{t.tag}})
	}
	return groups
}

// compareTags orders releases newest first, then other tags by name.
func compareTags(releases []release, a, b string) int {
	ia := slices.IndexFunc(releases, func(r release) bool { return r.tag == a })
	ib := slices.IndexFunc(releases, func(r release) bool { return r.tag == b })
	switch {
	case ia >= 0 && ib >= 0:
		return ia - ib
	case ia >= 0:
		return -1
	case ib >= 0:
		return 1
	}
	if a < b {
		return -1
	}
	return 1
}

// resolveConcurrency bounds the tag lookups in flight.
const resolveConcurrency = 8

// resolveAll resolves every tag, resolveConcurrency at a time; the first
// failure cancels the rest.
func (p *planner) resolveAll(ctx context.Context, tags []string) (map[string]ocispec.Descriptor, error) {
	descs := make([]ocispec.Descriptor, len(tags))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(resolveConcurrency)
	for i, t := range tags {
		g.Go(func() error {
			ref := p.repo
			ref.Tag = t
			var err error
			descs[i], err = p.r.Resolve(ctx, ref)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[string]ocispec.Descriptor, len(tags))
	for i, t := range tags {
		out[t] = descs[i]
	}
	return out, nil
}
