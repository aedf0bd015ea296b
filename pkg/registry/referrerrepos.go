package registry

import (
	"context"
	"sync"

	"oras.land/oras-go/v2/registry/remote"
)

// referrerRepos keeps the oras-go repository each repository's new
// signatures and attestations are pushed through (PushNew), so that pushes
// of two referrers of one subject may run at once. On a registry without
// the referrers API, pushing a referrer reads the subject's referrers index
// (its sha256-<hex> tag), adds the referrer and writes the index back;
// oras-go merges concurrent changes to one index, but only within one
// remote.Repository, and the Client otherwise makes a fresh one per call —
// two concurrent pushes would each write an index without the other's
// referrer.
type referrerRepos struct {
	mu    sync.Mutex
	repos map[string]*remote.Repository
}

// get returns the shared repository of ref's repository, made by newRepo the
// first time.
func (r *referrerRepos) get(ctx context.Context, ref Reference, newRepo func(context.Context, Reference) (*remote.Repository, error)) (*remote.Repository, error) {
	key := ref.Registry + "/" + ref.Repository
	r.mu.Lock()
	defer r.mu.Unlock()
	if repo, ok := r.repos[key]; ok {
		return repo, nil
	}
	repo, err := newRepo(ctx, ref)
	if err != nil {
		return nil, err
	}
	if r.repos == nil {
		r.repos = make(map[string]*remote.Repository)
	}
	r.repos[key] = repo
	return repo, nil
}
