package prune

import (
	"context"
	"errors"
	"fmt"
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
// like carries Release and Orphan.
func (p *planner) below(ctx context.Context, subject ocispec.Descriptor, like Item, depth int) error {
	if depth >= maxDepth {
		return nil
	}
	refs, truncated, err := p.r.Referrers(ctx, p.repo, subject, "", p.opts.MaxReferrers)
	if err != nil {
		return err
	}
	if truncated {
		return fmt.Errorf("%s: %w: more than %d referrers of %s", p.repo.Repo(), ErrTooMany, p.opts.MaxReferrers, subject.Digest)
	}
	for _, r := range refs {
		it := like
		it.Kind, it.Digest, it.Subject, it.ArtifactType = KindReferrer, r.Digest, subject.Digest, r.ArtifactType
		if !p.add(it) {
			continue
		}
		if err := p.below(ctx, r, like, depth+1); err != nil {
			return err
		}
	}
	tag := indexTag(subject.Digest)
	if d, ok, err := p.resolveTag(ctx, tag); err != nil {
		return err
	} else if ok {
		it := like
		it.Kind, it.Digest, it.Tags, it.Subject = KindIndex, d.Digest, []string{tag}, subject.Digest
		p.add(it)
	}
	for _, suffix := range classicSuffixes {
		tag := sign.CosignTag(subject, suffix)
		d, ok, err := p.resolveTag(ctx, tag)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		it := like
		it.Kind, it.Digest, it.Tags, it.Subject = KindTag, d.Digest, []string{tag}, subject.Digest
		if p.add(it) {
			if err := p.below(ctx, d, like, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// add appends it to the plan unless its digest is planned already or
// protected (then it is recorded as skipped); it reports whether it was added.
func (p *planner) add(it Item) bool {
	if p.planned[it.Digest] {
		return false
	}
	p.known[it.Digest], p.planned[it.Digest] = true, true
	if reason, ok := p.protected[it.Digest]; ok {
		tag := ""
		if len(it.Tags) > 0 {
			tag = it.Tags[0]
		}
		p.plan.Skipped = append(p.plan.Skipped, Skip{Digest: it.Digest, Tag: tag, Release: it.Release, Reason: reason})
		return false
	}
	p.plan.Delete = append(p.plan.Delete, it)
	return true
}

// resolveTag resolves a tag the listing holds; ok is false when it is not listed.
func (p *planner) resolveTag(ctx context.Context, tag string) (ocispec.Descriptor, bool, error) {
	if !p.tags[tag] {
		return ocispec.Descriptor{}, false, nil
	}
	ref := p.repo
	ref.Tag = tag
	d, err := p.r.Resolve(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) {
		return d, false, nil // deleted since the listing
	}
	return d, err == nil, err
}

// orphans plans the vouching tags (and referrers) of manifests that are
// gone: what an interrupted run, or a manifest deleted by hand, left behind.
func (p *planner) orphans(ctx context.Context, tags []string) error {
	var subjects []digest.Digest
	for _, t := range tags {
		s, ok := vouchSubject(t)
		if !ok || p.known[s] || slices.Contains(subjects, s) {
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
