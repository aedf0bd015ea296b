package prune

import (
	"context"
	"errors"
	"slices"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

// maxDepth bounds how deep signatures and referrers of signatures and
// referrers are followed (as copy does).
const maxDepth = 4

// classicSuffixes are cosign's tag suffixes, in the order they are deleted.
var classicSuffixes = []string{sign.TagSuffixSignature, sign.TagSuffixAttestation, "sbom"}

// indexTag is the referrers tag schema's tag for subject: "sha256-<hex>".
func indexTag(subject digest.Digest) string {
	return subject.Algorithm().String() + "-" + subject.Encoded()
}

// release plans one release's manifest and everything under it.
func (p *planner) release(ctx context.Context, g group) error {
	p.plan.Delete = append(p.plan.Delete, Item{Kind: KindRelease, Digest: g.desc.Digest, Tags: g.tags, Release: g.tags[0]})
	p.planned[g.desc.Digest] = true
	return p.below(ctx, g.desc, Item{Release: g.tags[0]}, 0)
}

// below plans what vouches for subject, after subject: its referrers (each
// followed by what vouches for it), then its referrers index tag, then its
// classic tags (each followed by what vouches for it). Classic tags go last:
// while one is left, a later run finds the subject gone and this walk again
// (orphans), even on registries whose referrers API is the only other way in.
// What is needed is skipped and not followed (add). like carries Release
// and Orphan.
func (p *planner) below(ctx context.Context, subject ocispec.Descriptor, like Item, depth int) error {
	if depth >= maxDepth {
		return nil
	}
	links, err := p.vouching(ctx, subject)
	if err != nil {
		return err
	}
	for _, l := range links {
		it := like
		it.Kind, it.Digest, it.Subject = l.kind, l.desc.Digest, subject.Digest
		if l.kind == KindReferrer {
			it.ArtifactType = l.desc.ArtifactType
		} else {
			it.Tags = []string{l.tag}
		}
		added, err := p.add(it)
		if err != nil {
			return err
		}
		// A referrers index is not followed: what it lists is what the
		// referrers listing of the same subject returned.
		if added && l.kind != KindIndex {
			if err := p.below(ctx, l.desc, like, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// add appends it to the plan unless its digest is planned already or
// needed (then it is recorded as skipped, with what needs it); it reports
// whether it was added.
func (p *planner) add(it Item) (bool, error) {
	if p.planned[it.Digest] {
		return false, nil
	}
	p.known[it.Digest], p.planned[it.Digest] = true, true
	if n, ok := p.needed[it.Digest]; ok {
		tag := ""
		if len(it.Tags) > 0 {
			tag = it.Tags[0]
		}
		p.plan.Skipped = append(p.plan.Skipped, Skip{Kind: it.Kind, Digest: it.Digest, Tag: tag, Release: it.Release, NeededBy: n.root, Reason: n.reason})
		return false, nil
	}
	p.plan.Delete = append(p.plan.Delete, it)
	return true, p.bound()
}

// orphans plans the vouching tags (and referrers) of manifests that are
// gone: what an interrupted run, or a manifest deleted by hand, left behind.
func (p *planner) orphans(ctx context.Context, tags []string) error {
	var subjects []digest.Digest
	for _, t := range tags {
		s, ok := vouchSubject(t)
		_, needed := p.needed[s]
		if !ok || needed || p.known[s] || slices.Contains(subjects, s) {
			continue
		}
		subjects = append(subjects, s)
	}
	for _, s := range subjects {
		ref := p.repo
		ref.Digest = s
		_, err := p.r.Resolve(ctx, ref)
		if err == nil {
			continue // a manifest nothing tags, e.g. a referrer of a kept one
		}
		if !errors.Is(err, registry.ErrNotFound) {
			return err
		}
		gone := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: s}
		if err := p.below(ctx, gone, Item{Orphan: true}, 0); err != nil {
			return err
		}
	}
	return nil
}
