package stack

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/registry"
)

// Step is one add-on of a locked stack, in install order.
type Step struct {
	Name    string
	Version string
	// Ref is the add-on pinned by its locked digest: whatever reads a lock
	// fetches by digest and verifies again (specs/stack.md section 4.3).
	Ref   registry.Reference
	Level int
	// Values is the values file the stack file gives the add-on ("" for
	// its defaults), resolved against the stack file's directory.
	Values string
	// DependsOn names the add-ons of the stack this one requires.
	DependsOn []string
	// RequiredBy is the lock's record of who requires the add-on: the
	// consumer binds it to the signed dependencies (binding).
	RequiredBy []Requirement
}

// Steps lists the lock's add-ons in install order with the values the stack
// gives them. A lock that its stack file and a resolution could not have
// written is refused (specs/stack.md section 4.5): one not consistent in
// itself (ErrLock), or one made for another stack file or holding an entry
// the stack file does not account for (ErrDrift; lock --check names every
// difference).
func Steps(st *Stack, l *Lock) ([]Step, error) {
	path := LockPath(st.Path)
	if err := l.validate(path); err != nil {
		return nil, err
	}
	if drift := stackDrift(st, l); len(drift) > 0 {
		return nil, fmt.Errorf("%s: %w: the lock does not match its stack file (run addonpack lock):\n  %s", path, ErrDrift, strings.Join(drift, "\n  "))
	}
	byName := map[string]LockedAddon{}
	for _, a := range l.Addons {
		byName[a.Name] = a
	}
	values := map[string]string{}
	for _, e := range st.Addons {
		if e.Values != "" {
			values[e.expectedName()] = filepath.Join(st.Dir(), e.Values)
		}
	}
	dependsOn := map[string][]string{} // requirer → the add-ons it requires
	for _, a := range l.Addons {
		for _, r := range a.RequiredBy {
			if r.By != "stack" {
				name, _, _ := strings.Cut(r.By, "@")
				dependsOn[name] = append(dependsOn[name], a.Name)
			}
		}
	}
	var steps []Step
	for _, name := range l.Order {
		a := byName[name] // validate: order is a permutation of the entries
		ref, err := registry.ParseReference(a.Repository + "@" + a.Digest.String())
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w: %w", path, name, ErrStack, err)
		}
		steps = append(steps, Step{Name: name, Version: a.Version, Ref: ref, Level: a.Level, Values: values[name],
			DependsOn: slices.Sorted(slices.Values(dependsOn[name])), RequiredBy: a.RequiredBy})
	}
	return steps, nil
}

// Locked reads the stack file and the lock beside it and returns the stack
// and its add-ons in install order (Steps): what render --stack and pull
// --stack work from. A missing lock is not found, with the command that
// makes it.
func Locked(file string) (*Stack, []Step, error) {
	st, err := Load(file)
	if err != nil {
		return nil, nil, err
	}
	l, err := ReadLock(LockPath(file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s: no lock beside the stack file: run addonpack lock %s first: %w", LockPath(file), file, err)
	}
	if err != nil {
		return nil, nil, err
	}
	steps, err := Steps(st, l)
	return st, steps, err
}
