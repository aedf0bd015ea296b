package prune

import (
	"context"
	"errors"
	"fmt"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

// ErrChanged reports a repository that changed since the plan was made so
// that executing it would delete what a kept tag now points at.
var ErrChanged = errdef.New(errdef.ErrConflict, "repository changed since the plan")

// ErrUntagRemoved reports a registry that, asked to delete one tag, deleted
// the manifest it pointed at: a manifest a kept tag or pin needs.
var ErrUntagRemoved = errdef.New(errdef.ErrUnsupported, "registry deleted a manifest when asked to delete a tag")

// Result is what Execute did.
type Result struct {
	Repository string `json:"repository"`
	Deleted    []Item `json:"deleted"`
	Skipped    []Skip `json:"skipped,omitempty"`
	// Remaining are the plan's items left when Execute stopped on an error.
	Remaining []Item `json:"remaining,omitempty"`
}

// Execute deletes plan's items from repo in the plan's order (specs/prune.md,
// "Order"). First it resolves the kept tags again: if one now points at a
// digest the plan deletes, nothing is deleted (ErrChanged). It stops at the
// first failure, returning what was deleted and what remains; running
// NewPlan and Execute again finishes the job. A release tag the registry
// cannot delete alone (its manifest is kept) is skipped, not a failure. An
// item already gone counts as deleted.
func Execute(ctx context.Context, r Registry, repo registry.Reference, plan *Plan) (*Result, error) {
	repo.Tag, repo.Digest = "", ""
	res := &Result{Repository: repo.Repo(), Deleted: []Item{}, Skipped: append([]Skip(nil), plan.Skipped...)}
	if err := recheck(ctx, r, repo, plan); err != nil {
		return res, err
	}
	for i, it := range plan.Delete {
		ref := repo
		if it.Kind == KindUntag {
			ref.Tag = it.Tags[0]
		} else {
			ref.Digest = it.Digest
		}
		err := r.Delete(ctx, ref)
		if it.Kind == KindUntag && (err == nil || errors.Is(err, registry.ErrNotFound)) {
			err = stillThere(ctx, r, repo, it)
		}
		switch {
		case err == nil, errors.Is(err, registry.ErrNotFound):
			res.Deleted = append(res.Deleted, it)
			continue
		case it.Kind == KindUntag && errors.Is(err, registry.ErrDeleteUnsupported):
			res.Skipped = append(res.Skipped, Skip{Kind: KindUntag, Digest: it.Digest, Tag: it.Tags[0], Release: it.Release,
				Reason: "the registry deletes a tag only with its manifest, which is kept"})
			continue
		}
		res.Remaining = plan.Delete[i:]
		if errors.Is(err, registry.ErrDeleteUnsupported) && len(res.Deleted) == 0 {
			return res, fmt.Errorf("prune %s: nothing was deleted: %w (CNCF distribution needs storage.delete.enabled: true)", repo.Repo(), err)
		}
		return res, fmt.Errorf("prune %s: %d deleted, stopped at %s %s (%d left; run prune again to finish): %w",
			repo.Repo(), len(res.Deleted), it.Kind, it.Digest, len(res.Remaining), err)
	}
	return res, nil
}

// stillThere checks that the manifest of an untagged release tag is still
// there: it is needed (specs/prune.md section 2), and a registry that
// deletes a manifest for a tag must not be asked for another untag.
func stillThere(ctx context.Context, r Registry, repo registry.Reference, it Item) error {
	_, err := r.Resolve(ctx, repo.WithDigest(it.Digest))
	if errors.Is(err, registry.ErrNotFound) {
		return fmt.Errorf("%w: deleting tag %s removed manifest %s, which a kept tag or pin needs", ErrUntagRemoved, it.Tags[0], it.Digest)
	}
	return err
}

// recheck resolves the kept tags again and fails if one now points at a
// digest the plan deletes.
func recheck(ctx context.Context, r Registry, repo registry.Reference, plan *Plan) error {
	doomed := map[digest.Digest]bool{}
	for _, it := range plan.Delete {
		if it.Kind != KindUntag {
			doomed[it.Digest] = true
		}
	}
	for _, k := range plan.Keep {
		ref := repo
		ref.Tag = k.Tag
		d, err := r.Resolve(ctx, ref)
		if errors.Is(err, registry.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if doomed[d.Digest] {
			return fmt.Errorf("prune %s: %w: kept tag %s now points at %s, which the plan deletes; nothing was deleted", repo.Repo(), ErrChanged, k.Tag, d.Digest)
		}
	}
	return nil
}
