package registry

import (
	"sync"

	"oras.land/oras-go/v2/registry/remote"
)

// referrersCaps remembers, per registry host, whether the host serves the
// OCI 1.1 referrers API. oras-go learns it per remote.Repository, and the
// Client makes a fresh one per call, so without this every Referrers call
// on a registry without the API (distribution 2.8 answers 404) would ask the
// API first and then read the referrers tag schema: two requests where one
// does. Only answers from successful listings are kept.
//
// Knowing the capability changes which of the two places is read, never
// what is believed: a registry can always withhold referrers, and callers
// verify whatever is listed.
type referrersCaps struct {
	mu    sync.Mutex
	hosts map[string]bool
}

// apply tells repo what is known about host, if anything.
func (r *referrersCaps) apply(host string, repo *remote.Repository) {
	r.mu.Lock()
	capable, known := r.hosts[host]
	r.mu.Unlock()
	if known {
		_ = repo.SetReferrersCapability(capable) // a fresh repository: nothing set yet
	}
}

// learn records what repo found out about host during a successful listing.
func (r *referrersCaps) learn(host string, repo *remote.Repository) {
	// After a successful listing oras-go has decided the capability; setting
	// "capable" fails exactly when it decided "not capable".
	capable := repo.SetReferrersCapability(true) == nil
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hosts == nil {
		r.hosts = make(map[string]bool)
	}
	r.hosts[host] = capable
}
