package stack

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/semver"
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
// named (all when names is empty) may move, within their upgrade policy and
// never down unless opts.AllowDowngrade (specs/stack.md section 4.6), and
// never to an artifact none of their locked signers signed, or that this
// run did not verify, unless opts.AllowSignerChange (ErrSignerChange,
// section 4.8); an entry whose digest stays keeps its signers when nothing
// was verified; the others stay
// at their locked tags, which must still satisfy every range.
// Without a lock (and without names) it resolves from scratch.
func UpdateLock(ctx context.Context, reg Registry, st *Stack, names []string, opts Options) (*Lock, error) {
	old, err := ReadLock(LockPath(st.Path))
	if errors.Is(err, fs.ErrNotExist) && len(names) == 0 {
		return WriteLock(ctx, reg, st, opts)
	}
	if err != nil {
		return nil, err
	}
	opts.Keep, opts.Locked = map[string]string{}, map[string]semver.Version{}
	var known []string
	for _, a := range old.Addons {
		known = append(known, a.Name)
		switch {
		case a.Tag == "": // pinned by digest: nothing to move
		case len(names) > 0 && !slices.Contains(names, a.Name):
			opts.Keep[a.Repository] = a.Tag
		default:
			opts.Locked[a.Repository] = semver.MustParse(a.Version) // ReadLock checked it
		}
	}
	for _, n := range names {
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("%s: %w: no add-on %q in the lock (it has %s)", LockPath(st.Path), ErrStack, n, strings.Join(known, ", "))
		}
	}
	l, err := Resolve(ctx, reg, st, opts)
	if err != nil {
		return nil, err
	}
	carrySigners(old, l)
	carryDowngrades(old, l)
	if changed := signerChanges(old, l); len(changed) > 0 && !opts.AllowSignerChange {
		return nil, fmt.Errorf("%s: %w: no locked signer is known to have signed the new artifact:\n  %s\npass --allow-signer-change to accept it",
			LockPath(st.Path), ErrSignerChange, strings.Join(changed, "\n  "))
	}
	if err := l.Write(LockPath(st.Path)); err != nil {
		return nil, fmt.Errorf("%s: %w", LockPath(st.Path), err)
	}
	return l, nil
}

// carryDowngrades keeps the downgrade record of every entry that stays at
// the version it was moved down to; an entry that moved loses it.
func carryDowngrades(old, l *Lock) {
	for i, a := range l.Addons {
		for _, o := range old.Addons {
			if o.Repository == a.Repository && o.Version == a.Version && a.DowngradedFrom == "" {
				l.Addons[i].DowngradedFrom = o.DowngradedFrom
			}
		}
	}
	l.settleVersion()
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
