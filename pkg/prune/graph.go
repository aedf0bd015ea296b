package prune

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

// ErrIndex reports an image index that a kept tag or pin reaches and that
// cannot be read as one: what it lists, and so what is needed, is unknown.
var ErrIndex = errdef.New(errdef.ErrInvalid, "unreadable image index")

// kindChild is the link from an image index to a manifest it lists.
const kindChild = "child"

// mediaTypeDockerList is Docker's image index.
const mediaTypeDockerList = "application/vnd.docker.distribution.manifest.list.v2+json"

// link is one edge of the repository's graph: from a manifest to what
// vouches for it (kind KindReferrer, KindIndex or KindTag, with the tag), or
// from an image index to a manifest it lists (kindChild).
type link struct {
	kind string
	desc ocispec.Descriptor
	tag  string
}

// vouching returns what vouches for subject in the order of specs/prune.md
// section 1 — its referrers, then its referrers index tag, then its classic
// tags — read once a plan, whoever asks (the needed walk or a release's).
func (p *planner) vouching(ctx context.Context, subject ocispec.Descriptor) ([]link, error) {
	p.mu.Lock()
	ls, ok := p.links[subject.Digest]
	p.mu.Unlock()
	if ok {
		return ls, nil
	}
	refs, truncated, err := p.r.Referrers(ctx, p.repo, subject, "", p.opts.MaxReferrers)
	if err != nil {
		return nil, err
	}
	if truncated {
		return nil, fmt.Errorf("%s: %w: more than %d referrers of %s", p.repo.Repo(), ErrTooMany, p.opts.MaxReferrers, subject.Digest)
	}
	ls = make([]link, 0, len(refs)+4)
	for _, r := range refs {
		ls = append(ls, link{kind: KindReferrer, desc: r})
	}
	tags := []string{indexTag(subject.Digest)}
	for _, suffix := range classicSuffixes {
		tags = append(tags, sign.CosignTag(subject, suffix))
	}
	for i, tag := range tags {
		d, ok, err := p.resolveTag(ctx, tag)
		if err != nil {
			return nil, err
		}
		if ok {
			kind := KindTag
			if i == 0 {
				kind = KindIndex
			}
			ls = append(ls, link{kind: kind, desc: d, tag: tag})
		}
	}
	p.mu.Lock()
	p.links[subject.Digest] = ls
	p.mu.Unlock()
	return ls, nil
}

// isIndex reports whether desc is an image index, whose listed manifests
// are needed with it.
func isIndex(desc ocispec.Descriptor) bool {
	return desc.MediaType == ocispec.MediaTypeImageIndex || desc.MediaType == mediaTypeDockerList
}

// children returns the manifests the image index desc lists, at most
// MaxReferrers of them (more is ErrTooMany).
func (p *planner) children(ctx context.Context, desc ocispec.Descriptor) ([]link, error) {
	body, err := p.r.FetchManifest(ctx, p.repo, desc)
	if err != nil {
		return nil, err
	}
	var idx struct {
		Manifests []ocispec.Descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(body, &idx); err != nil {
		return nil, fmt.Errorf("%s@%s: %w: %w", p.repo.Repo(), desc.Digest, ErrIndex, err)
	}
	if len(idx.Manifests) > p.opts.MaxReferrers {
		return nil, fmt.Errorf("%s: %w: image index %s lists %d manifests, more than %d", p.repo.Repo(), ErrTooMany, desc.Digest, len(idx.Manifests), p.opts.MaxReferrers)
	}
	ls := make([]link, 0, len(idx.Manifests))
	for _, m := range idx.Manifests {
		if m.Digest.Validate() != nil {
			return nil, fmt.Errorf("%s@%s: %w: listed digest %q", p.repo.Repo(), desc.Digest, ErrIndex, m.Digest)
		}
		ls = append(ls, link{kind: kindChild, desc: m})
	}
	return ls, nil
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
