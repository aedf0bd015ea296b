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

// Check compares the lock with the stack file it was made from and with the
// registries: the same roots with the same ranges or digests, and every
// locked tag still at its locked digest. It returns one line per difference,
// and an error only when a registry could not answer.
func Check(ctx context.Context, res TagResolver, st *Stack, l *Lock) ([]string, error) {
	var drift []string
	locked := map[string]LockedAddon{}
	for _, a := range l.Addons {
		locked[a.Repository] = a
	}
	inStack := map[string]bool{}
	for _, e := range st.Addons {
		repo := e.repo.Repo()
		inStack[repo] = true
		a, ok := locked[repo]
		if !ok {
			drift = append(drift, fmt.Sprintf("%s: in the stack file, not in the lock", repo))
			continue
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
	for _, a := range l.Addons {
		for _, r := range a.RequiredBy {
			if r.By == "stack" && !inStack[a.Repository] {
				drift = append(drift, fmt.Sprintf("%s: locked as a root, no longer in the stack file", a.Name))
				break
			}
		}
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

func describe(r Requirement) string {
	if r.Digest != "" {
		return "digest " + r.Digest.String()
	}
	return fmt.Sprintf("%q", r.Version)
}
