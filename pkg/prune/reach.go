package prune

import (
	"context"
	"errors"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/addonpack/addonpack/pkg/registry"
)

// root is where the needed walk starts: a kept tag's manifest or a pin.
type root struct {
	desc ocispec.Descriptor
	// name says which root ("kept tag 0.3.0", "pin sha256:..."); reason
	// why the root itself stays.
	name, reason string
}

// need says what needs a digest: the root that reaches it, and how.
type need struct{ root, reason string }

// reach computes the needed set (specs/prune.md section 2): every digest a
// root reaches through what vouches for a manifest and what an image index
// lists, to maxDepth, breadth first so that each digest is recorded with
// its shortest way from a root. Each level is read a few manifests at a
// time; each manifest's links are read once (vouching memoises them, and a
// release walk that meets the same manifest reuses them).
func (p *planner) reach(ctx context.Context, roots []root) error {
	var frontier []ocispec.Descriptor
	for _, r := range roots {
		if _, ok := p.needed[r.desc.Digest]; ok {
			continue
		}
		p.needed[r.desc.Digest] = need{root: r.name, reason: r.reason}
		frontier = append(frontier, r.desc)
	}
	if err := p.bound(); err != nil {
		return err
	}
	for depth := 0; depth < maxDepth && len(frontier) > 0; depth++ {
		descs, links, err := p.expand(ctx, frontier)
		if err != nil {
			return err
		}
		var next []ocispec.Descriptor
		for i, from := range descs {
			if from.MediaType != "" {
				p.known[from.Digest] = true
			}
			n := p.needed[from.Digest]
			for _, l := range links[i] {
				if _, ok := p.needed[l.desc.Digest]; ok {
					continue
				}
				p.needed[l.desc.Digest] = need{root: n.root, reason: "needed by " + n.root + ": " + l.describe(from.Digest)}
				next = append(next, l.desc)
			}
		}
		if err := p.bound(); err != nil {
			return err
		}
		frontier = next
	}
	return nil
}

// expand reads the links of every manifest of frontier, resolveConcurrency
// at a time. A pin comes without a media type: it is resolved first (a pin
// the repository does not hold still has its vouching tags looked up). It
// returns the descriptors as resolved and the links of each, or the error
// of the first manifest in frontier's order that failed: every lookup runs
// to its end, so two runs over the same repository report the same error
// (a kept index over the bound and a manifest with too many referrers,
// found side by side, would otherwise race to be the one reported).
func (p *planner) expand(ctx context.Context, frontier []ocispec.Descriptor) ([]ocispec.Descriptor, [][]link, error) {
	descs := append([]ocispec.Descriptor(nil), frontier...)
	links := make([][]link, len(frontier))
	errs := make([]error, len(frontier))
	var g errgroup.Group
	g.SetLimit(resolveConcurrency)
	for i := range descs {
		g.Go(func() error {
			links[i], errs[i] = p.linksOf(ctx, &descs[i])
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through errs
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return descs, links, nil
}

// linksOf returns what vouches for *desc and, for an image index, what it
// lists; it fills in *desc's media type and size when it has none.
func (p *planner) linksOf(ctx context.Context, desc *ocispec.Descriptor) ([]link, error) {
	if desc.MediaType == "" {
		d, err := p.r.Resolve(ctx, p.repo.WithDigest(desc.Digest))
		switch {
		case err == nil:
			*desc = d
		case !errors.Is(err, registry.ErrNotFound):
			return nil, err
		}
	}
	ls, err := p.vouching(ctx, *desc)
	if err != nil || !isIndex(*desc) {
		return ls, err
	}
	children, err := p.children(ctx, *desc)
	if err != nil {
		return nil, err
	}
	return append(children, ls...), nil
}

// bound refuses a graph larger than MaxManifests: a needed set read in part
// would guarantee nothing.
func (p *planner) bound() error {
	if n := len(p.needed) + len(p.planned); n > p.opts.MaxManifests {
		return fmt.Errorf("%s: %w: more than %d manifests needed and planned", p.repo.Repo(), ErrTooMany, p.opts.MaxManifests)
	}
	return nil
}

// describe says how the manifest l leads to relates to from.
func (l link) describe(from digest.Digest) string {
	switch l.kind {
	case KindReferrer:
		return "a referrer of " + from.String()
	case kindChild:
		return "listed by image index " + from.String()
	case KindIndex:
		return "referrers index tag " + l.tag + " points at it"
	}
	return "tag " + l.tag + " points at it"
}
