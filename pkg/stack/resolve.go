package stack

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Registry is what resolution needs from the registries.
type Registry interface {
	// Versions lists a repository's versions (its tags read as versions).
	Versions(ctx context.Context, repo registry.Reference) (semver.List, error)
	// Open resolves ref (a tag or a digest) once, verifies the digest under
	// the policy scope of ref's repository, checks the signed name against
	// name and the signed version against the tag, and returns what the
	// signed config blob says.
	Open(ctx context.Context, ref registry.Reference, name string) (Artifact, error)
}

// Artifact is one verified add-on.
type Artifact struct {
	Digest       digest.Digest
	Name         string
	Version      semver.Version
	Dependencies []spec.Dependency
	// Signers are who signed it (the lock sorts them); none when it was
	// not verified afresh.
	Signers []Signer
}

// Options shape a resolution.
type Options struct {
	// Lowest picks the lowest satisfying version instead of the highest.
	Lowest bool
	// Keep holds add-ons at these tags (by repository), for lock --update
	// of some add-ons only: the tag must still satisfy every range.
	Keep map[string]string
	// Locked holds the versions lock --update moves from (by repository):
	// there the stack's upgrade policy and the downgrade rule apply
	// (specs/stack.md section 4.6).
	Locked map[string]semver.Version
	// AllowDowngrade admits versions below the locked one (within the
	// policy); a downgrade is recorded in the lock.
	AllowDowngrade bool
	// AllowSignerChange lets lock --update move an add-on to an artifact
	// none of its locked signers signed, or one this run did not verify
	// (specs/stack.md section 4.8).
	AllowSignerChange bool
}

// The refusals of lock --update (specs/stack.md section 4.6 item 3).
var (
	ErrPolicy    = errdef.New(errdef.ErrInvalid, "no version within the upgrade policy")
	ErrDowngrade = errdef.New(errdef.ErrInvalid, "refused downgrade")
)

// requirement is one range (or digest) on a node and who set it.
type requirement struct {
	by     string // "stack" or "NAME VERSION"
	byName string // "" for the stack
	rng    semver.Range
	digest digest.Digest
	name   string // the add-on name the requirer expects ("" : the repository's)
	depth  int    // 0 for the stack's, else one more than the requirer's
}

func (r requirement) text() string {
	if r.digest != "" {
		return "digest " + r.digest.String()
	}
	return fmt.Sprintf("%q", r.rng.String())
}

// node is one repository's choice in a round.
type node struct {
	repo  registry.Reference
	tag   string
	art   Artifact
	reqs  []requirement
	depth int // the shortest path from the stack file
	// downgradedFrom is the locked version the node moved down from.
	downgradedFrom string
}

// resolver carries the caches of one resolution.
type resolver struct {
	st       *Stack
	reg      Registry
	opts     Options
	versions map[string]semver.List
	opened   map[string]Artifact // by "REPO:TAG" or "REPO@DIGEST"
}

// Resolve resolves st's roots and their dependencies to verified digests and
// returns the lock (specs/stack.md section 4.2).
func Resolve(ctx context.Context, reg Registry, st *Stack, opts Options) (*Lock, error) {
	r := &resolver{st: st, reg: reg, opts: opts, versions: map[string]semver.List{}, opened: map[string]Artifact{}}
	var chosen map[string]*node
	for round := 0; ; round++ {
		reqs, repos := r.requirements(st, chosen)
		if len(reqs) > MaxNodes {
			return nil, fmt.Errorf("%w: more than %d add-ons", ErrResolve, MaxNodes)
		}
		if round > 2*len(reqs)+8 {
			return nil, fmt.Errorf("%w: resolution does not settle after %d rounds", ErrResolve, round)
		}
		next := map[string]*node{}
		for _, key := range slices.Sorted(maps.Keys(reqs)) {
			n, err := r.choose(ctx, repos[key], reqs[key], chosen)
			if err != nil {
				return nil, err
			}
			next[key] = n
		}
		if sameChoice(chosen, next) {
			return newLock(next)
		}
		chosen = next
	}
}

// requirements collects the ranges on every repository: the roots', and
// those of the artifacts chosen in the previous round.
func (r *resolver) requirements(st *Stack, chosen map[string]*node) (map[string][]requirement, map[string]registry.Reference) {
	reqs := map[string][]requirement{}
	repos := map[string]registry.Reference{}
	for _, e := range st.Addons {
		key := e.repo.Repo()
		repos[key] = e.repo
		reqs[key] = append(reqs[key], requirement{by: "stack", rng: e.rng, digest: e.Digest, name: e.Name})
	}
	for _, key := range slices.Sorted(maps.Keys(chosen)) {
		n := chosen[key]
		for _, d := range n.art.Dependencies {
			ref, err := registry.ParseReference(d.Repository)
			if err != nil {
				continue // refused by spec.ParseConfigBlob already
			}
			rng, err := semver.ParseRange(d.Version)
			if err != nil {
				continue // likewise
			}
			k := ref.Repo()
			repos[k] = ref
			reqs[k] = append(reqs[k], requirement{by: n.art.Name + " " + n.art.Version.String(), byName: n.art.Name, rng: rng, name: d.Name, depth: n.depth + 1})
		}
	}
	return reqs, repos
}

// choose picks the version of one repository that every requirement admits
// and opens it.
func (r *resolver) choose(ctx context.Context, repo registry.Reference, reqs []requirement, prev map[string]*node) (*node, error) {
	name, err := expectedName(repo, reqs)
	if err != nil {
		return nil, err
	}
	n := &node{repo: repo, reqs: reqs, depth: MaxDepth + 1}
	for _, q := range reqs {
		n.depth = min(n.depth, q.depth)
	}
	if n.depth > MaxDepth {
		return nil, fmt.Errorf("%s: %w: more than %d dependencies deep: %s", repo.Repo(), ErrResolve, MaxDepth, chain(sortedReqs(reqs)[0], prev))
	}
	if d := pinnedDigest(reqs); d != "" {
		n.art, err = r.open(ctx, repo.WithDigest(d), name)
		if err != nil {
			return nil, err
		}
		if bad := unmet(reqs, n.art.Version); len(bad) > 0 {
			return nil, conflict(repo, reqs, prev, "the pinned digest's version "+n.art.Version.String()+" does not satisfy every range")
		}
		return n, nil
	}
	list, ok := r.versions[repo.Repo()]
	if !ok {
		if list, err = r.reg.Versions(ctx, repo); err != nil {
			return nil, fmt.Errorf("%s (required by %s): %w", repo.Repo(), chain(sortedReqs(reqs)[0], prev), err)
		}
		r.versions[repo.Repo()] = list
	}
	var fit, outside, lower []semver.Tagged
	locked, moving := r.opts.Locked[repo.Repo()]
	policy := r.st.UpgradePolicy(repo.Repo())
	for _, t := range list.Versions {
		if keep, ok := r.opts.Keep[repo.Repo()]; ok && t.Tag != keep {
			continue
		}
		switch {
		case len(unmet(reqs, t.Version)) > 0:
		case moving && !Within(policy, locked, t.Version):
			outside = append(outside, t)
		case moving && !r.opts.AllowDowngrade && t.Version.Compare(locked) < 0:
			lower = append(lower, t)
		default:
			fit = append(fit, t)
		}
	}
	if len(fit) == 0 && len(lower) > 0 {
		return nil, fmt.Errorf("%s: %w: would downgrade from the locked %s to %s (no version at or above it satisfies every range within the policy): pass --allow-downgrade to accept it",
			repo.Repo(), ErrDowngrade, locked, lower[len(lower)-1].Tag)
	}
	if len(fit) == 0 && len(outside) > 0 {
		return nil, fmt.Errorf("%s: %w (%s) satisfies every range; %s would: raise upgrade in the stack file, or run lock without --update",
			repo.Repo(), ErrPolicy, DescribePolicy(policy, locked), outside[len(outside)-1].Tag)
	}
	if len(fit) == 0 {
		detail := list.Available()
		if keep, ok := r.opts.Keep[repo.Repo()]; ok {
			detail = "kept at " + keep + "; " + detail
		}
		return nil, conflict(repo, reqs, prev, detail)
	}
	pick, tied := semver.Pick(fit, r.opts.Lowest)
	if len(tied) > 1 {
		return nil, fmt.Errorf("%s: %w: tags %s have equal precedence: %w", repo.Repo(), ErrResolve, strings.Join(tied, ", "), semver.ErrAmbiguous)
	}
	n.tag = pick.Tag
	if moving && pick.Version.Compare(locked) < 0 {
		n.downgradedFrom = locked.String()
	}
	ref := repo
	ref.Tag = pick.Tag
	if n.art, err = r.open(ctx, ref, name); err != nil {
		return nil, err
	}
	return n, nil
}

// open opens ref once per resolution.
func (r *resolver) open(ctx context.Context, ref registry.Reference, name string) (Artifact, error) {
	key := ref.String() + " " + name
	if a, ok := r.opened[key]; ok {
		return a, nil
	}
	a, err := r.reg.Open(ctx, ref, name)
	if err != nil {
		return Artifact{}, err
	}
	r.opened[key] = a
	return a, nil
}

// expectedName is the add-on name every requirer expects: the one they give,
// else the repository's last path element.
func expectedName(repo registry.Reference, reqs []requirement) (string, error) {
	name, from := "", ""
	for _, q := range reqs {
		if q.name == "" || q.name == name {
			continue
		}
		if name != "" {
			return "", fmt.Errorf("%s: %w: named %q by %s and %q by %s", repo.Repo(), ErrResolve, name, from, q.name, q.by)
		}
		name, from = q.name, q.by
	}
	if name == "" {
		name = repo.Repository[strings.LastIndex(repo.Repository, "/")+1:]
	}
	return name, nil
}

func pinnedDigest(reqs []requirement) digest.Digest {
	for _, q := range reqs {
		if q.digest != "" {
			return q.digest
		}
	}
	return ""
}

// unmet returns the requirements v does not satisfy (digests aside).
func unmet(reqs []requirement, v semver.Version) []requirement {
	var out []requirement
	for _, q := range reqs {
		if q.digest == "" && !q.rng.Match(v) {
			out = append(out, q)
		}
	}
	return out
}

func sameChoice(a, b map[string]*node) bool {
	if a == nil || len(a) != len(b) {
		return false
	}
	for k, n := range a {
		m, ok := b[k]
		if !ok || m.art.Digest != n.art.Digest {
			return false
		}
	}
	return true
}
