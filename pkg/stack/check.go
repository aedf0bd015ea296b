package stack

import (
	"context"
	"errors"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

// ErrDrift reports a lock that no longer matches its stack file or the
// registries (specs/stack.md section 4.3, item 3).
var ErrDrift = errdef.New(errdef.ErrConflict, "lock drift")

// TagResolver resolves a tag to its digest; *registry.Client is one.
type TagResolver interface {
	Resolve(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, error)
}

// Check compares the lock with the stack file it was made from
// (stackDrift) and with the registries: every locked tag still at its
// locked digest. It returns one line per difference, and an error only when
// a registry could not answer or the lock is not consistent in itself.
func Check(ctx context.Context, res TagResolver, st *Stack, l *Lock) ([]string, error) {
	if err := l.validate(LockPath(st.Path)); err != nil {
		return nil, err
	}
	drift := stackDrift(st, l)
	for _, a := range l.Addons {
		if a.Tag == "" {
			continue
		}
		ref, err := registry.ParseReference(a.Repository + ":" + a.Tag)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", a.Name, ErrStack, err)
		}
		d, err := res.Resolve(ctx, ref)
		switch {
		case errors.Is(err, registry.ErrNotFound):
			drift = append(drift, fmt.Sprintf("%s: tag %s is gone, locked %s", a.Name, a.Tag, a.Digest))
		case err != nil:
			return nil, err
		case d.Digest != a.Digest:
			drift = append(drift, fmt.Sprintf("%s: tag %s now %s, locked %s", a.Name, a.Tag, d.Digest, a.Digest))
		}
	}
	return drift, nil
}

// stackDrift compares a lock, consistent in itself, with the stack file
// (specs/stack.md section 4.5 item 2): the same roots, under the names the
// stack file expects, with the same ranges or digests; no root the stack
// file dropped; and every entry accounted for — a root, or required by an
// entry that is. One line per difference, each naming the entry.
func stackDrift(st *Stack, l *Lock) []string {
	var drift []string
	locked := map[string]LockedAddon{}
	for _, a := range l.Addons {
		locked[a.Repository] = a
	}
	inStack := map[string]bool{}
	var reached []string
	for _, e := range st.Addons {
		repo := e.repo.Repo()
		inStack[repo] = true
		a, ok := locked[repo]
		if !ok {
			drift = append(drift, fmt.Sprintf("%s: in the stack file, not in the lock", repo))
			continue
		}
		reached = append(reached, a.Name)
		if want := e.expectedName(); a.Name != want {
			drift = append(drift, fmt.Sprintf("%s: the stack file expects add-on %q from %s, the lock names it %q", a.Name, want, repo, a.Name))
		}
		want := Requirement{By: "stack", Version: e.Version, Digest: e.Digest}
		var had []string
		found := false
		for _, r := range a.RequiredBy {
			if r.By == "stack" {
				found = found || r == want
				had = append(had, describe(r))
			}
		}
		if !found {
			was := "without it"
			if len(had) > 0 {
				was = "for " + strings.Join(had, ", ")
			}
			drift = append(drift, fmt.Sprintf("%s: stack requires %s, lock was made %s", a.Name, describe(want), was))
		}
	}
	requires := map[string][]string{} // requirer's name → the entries it requires
	stale := map[string]bool{}
	for _, a := range l.Addons {
		for _, r := range a.RequiredBy {
			if r.By == "stack" && !inStack[a.Repository] {
				drift = append(drift, fmt.Sprintf("%s: locked as a root, no longer in the stack file", a.Name))
				stale[a.Name] = true
			}
			if name, _, ok := strings.Cut(r.By, "@"); ok {
				requires[name] = append(requires[name], a.Name)
			}
		}
	}
	accounted := map[string]bool{}
	for len(reached) > 0 {
		name := reached[0]
		reached = reached[1:]
		if !accounted[name] {
			accounted[name] = true
			reached = append(reached, requires[name]...)
		}
	}
	for _, a := range l.Addons {
		if !accounted[a.Name] && !stale[a.Name] {
			drift = append(drift, fmt.Sprintf("%s: locked from %s, but neither the stack file nor an add-on it requires needs it", a.Name, a.Repository))
		}
	}
	return drift
}

// expectedName is the add-on name the stack file expects of a root: its
// name, else the repository's last path element (section 4 item 2).
func (e Entry) expectedName() string {
	if e.Name != "" {
		return e.Name
	}
	return e.repo.Repository[strings.LastIndex(e.repo.Repository, "/")+1:]
}

func describe(r Requirement) string {
	if r.Digest != "" {
		return "digest " + r.Digest.String()
	}
	return fmt.Sprintf("%q", r.Version)
}
