package stack

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// WriteLock resolves st and writes its lock beside the stack file
// (LockPath), replacing any lock there atomically.
func WriteLock(ctx context.Context, reg Registry, st *Stack, opts Options) (*Lock, error) {
	l, err := Resolve(ctx, reg, st, opts)
	if err != nil {
		return nil, err
	}
	if err := l.Write(LockPath(st.Path)); err != nil {
		return nil, fmt.Errorf("%s: %w", LockPath(st.Path), err)
	}
	return l, nil
}

// UpdateLock resolves st again and rewrites its lock: only the add-ons
// named (all when names is empty) may move; the others stay at their locked
// tags, which must still satisfy every range.
func UpdateLock(ctx context.Context, reg Registry, st *Stack, names []string, opts Options) (*Lock, error) {
	if len(names) > 0 {
		old, err := ReadLock(LockPath(st.Path))
		if err != nil {
			return nil, err
		}
		opts.Keep = map[string]string{}
		var known []string
		for _, a := range old.Addons {
			known = append(known, a.Name)
			if !slices.Contains(names, a.Name) && a.Tag != "" {
				opts.Keep[a.Repository] = a.Tag
			}
		}
		for _, n := range names {
			if !slices.Contains(known, n) {
				return nil, fmt.Errorf("%s: %w: no add-on %q in the lock (it has %s)", LockPath(st.Path), ErrStack, n, strings.Join(known, ", "))
			}
		}
	}
	return WriteLock(ctx, reg, st, opts)
}

// CheckLock reads st's lock and compares it with st and the registries
// (Check). Drift fails with an error wrapping ErrDrift that names every
// difference, one per line. With a Loader (lock --check given trust), every
// locked add-on is then also verified on the consumer path and bound to its
// entry (Bind); without one nothing is verified.
func CheckLock(ctx context.Context, res TagResolver, st *Stack, bind Loader) (*Lock, error) {
	path := LockPath(st.Path)
	l, err := ReadLock(path)
	if err != nil {
		return nil, err
	}
	drift, err := Check(ctx, res, st, l)
	if err != nil {
		return nil, err
	}
	if len(drift) > 0 {
		return l, fmt.Errorf("%s: %w:\n  %s", path, ErrDrift, strings.Join(drift, "\n  "))
	}
	if bind == nil {
		return l, nil
	}
	steps, err := Steps(st, l)
	if err != nil {
		return nil, err
	}
	if err := Bind(ctx, bind, steps); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}
