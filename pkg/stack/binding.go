package stack

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
)

// binding binds the steps of a locked stack, as the consumer verifies each,
// to what its verified config blob says (specs/stack.md section 4.5 item
// 3). Signatures cover a digest and the consumer binds the name the lock
// gives; only here are the lock's version and its dependency edges compared
// with the signed ones, so a digest swapped for another signed release, or
// an entry smuggled in under a requirement its requirer never signed, is
// refused. Every consumer of steps writes nothing until done passes.
type binding struct {
	byName map[string]Step
	// prefix is DST of a relocated stack (every add-on at DST/NAME), where
	// dependencies are expected instead of the repositories their parents
	// declare; "" otherwise.
	prefix string
	// signed holds the requirements the verified add-ons declare, as
	// "DEPENDENCY\x00NAME@VERSION"; bound the requirers ("NAME@VERSION")
	// whose config blob was read.
	signed map[string]bool
	bound  map[string]bool
}

// Bind loads every step's verified config blob through l (the consumer
// path: verified under its repository's scope, bound to the name the lock
// gives; no content layer is read) and binds it to its lock entry. It is
// what the consumers of steps check as they go, for a reader that fetches
// nothing else: lock --check given trust.
func Bind(ctx context.Context, l Loader, steps []Step) error {
	b := newBinding(steps)
	for _, s := range steps {
		loaded, err := l.Load(ctx, s.Ref, s.Name)
		if err != nil {
			return err
		}
		if err := b.bind(s, loaded.Addon); err != nil {
			return err
		}
	}
	return b.done()
}

func newBinding(steps []Step) *binding {
	b := &binding{byName: map[string]Step{}, signed: map[string]bool{}, bound: map[string]bool{}}
	for _, s := range steps {
		b.byName[s.Name] = s
	}
	for i, s := range steps {
		p := path.Dir(s.Ref.Repo())
		if s.Ref.Repo() != p+"/"+s.Name || (i > 0 && p != b.prefix) {
			b.prefix = ""
			break
		}
		b.prefix = p
	}
	return b
}

// bind checks the verified add-on a, opened for step s: its signed name and
// version are the lock's, and every dependency it declares is an entry of
// the lock, in the repository it declares, carrying its requirement.
func (b *binding) bind(s Step, a *spec.Addon) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w: %s", s.Name, ErrLock, fmt.Sprintf(format, args...))
	}
	if a.Metadata.Name != s.Name || a.Spec.Version != s.Version {
		return bad("locked as %s %s, but the signed add-on at %s is %s %s (the lock was edited: run addonpack lock)",
			s.Name, s.Version, s.Ref, a.Metadata.Name, a.Spec.Version)
	}
	by := s.Name + "@" + s.Version
	for _, d := range a.Spec.Dependencies {
		dep, ok := b.byName[d.Name]
		if !ok {
			return bad("its signed config requires %s (%s, %q), which the lock does not hold", d.Name, d.Repository, d.Version)
		}
		if !b.where(d, dep.Ref.Repo()) {
			return bad("its signed config requires %s from %s, but the lock has it from %s", d.Name, d.Repository, dep.Ref.Repo())
		}
		want := Requirement{By: by, Version: d.Version}
		found := false
		for _, r := range dep.RequiredBy {
			found = found || r == want
		}
		if !found {
			return bad("its signed config requires %s %q, which the lock does not record on %s", d.Name, d.Version, d.Name)
		}
		b.signed[d.Name+"\x00"+by] = true
	}
	b.bound[by] = true
	return nil
}

// where reports whether the lock may hold dependency d in repo: the
// repository d names, or DST/NAME in a relocated stack (specs/stack.md
// section 4.4: signed dependencies keep naming their original
// repositories).
func (b *binding) where(d spec.Dependency, repo string) bool {
	if b.prefix != "" && repo == b.prefix+"/"+d.Name {
		return true
	}
	ref, err := registry.ParseReference(d.Repository)
	return err == nil && ref.Repo() == repo
}

// done refuses a requirement the lock records that its requirer, bound,
// does not sign: an entry smuggled in as another add-on's dependency.
func (b *binding) done() error {
	for name, s := range b.byName {
		for _, r := range s.RequiredBy {
			if r.By == "stack" || !b.bound[r.By] || b.signed[name+"\x00"+r.By] {
				continue
			}
			requirer, _, _ := strings.Cut(r.By, "@")
			return fmt.Errorf("%s: %w: the lock says %s requires it (%q), but %s's signed config does not", name, ErrLock, r.By, r.Version, requirer)
		}
	}
	return nil
}
