package stack

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/registry"
)

// Lock is a resolved stack (specs/stack.md section 4.3). Field order is the
// file's key order.
type Lock struct {
	APIVersion string        `yaml:"apiVersion" json:"apiVersion"`
	Kind       string        `yaml:"kind" json:"kind"`
	Addons     []LockedAddon `yaml:"addons" json:"addons"`
	Order      []string      `yaml:"order" json:"order"`
}

// LockedAddon is one verified add-on of a lock.
type LockedAddon struct {
	Name       string        `yaml:"name" json:"name"`
	Repository string        `yaml:"repository" json:"repository"`
	Version    string        `yaml:"version" json:"version"`
	Tag        string        `yaml:"tag,omitempty" json:"tag,omitempty"`
	Digest     digest.Digest `yaml:"digest" json:"digest"`
	// Signers are who signed the artifact: the distinct signers whose
	// signatures verified Digest when the lock was written (apiVersion
	// v1alpha2 only; specs/stack.md sections 4.3 and 4.8).
	Signers []Signer `yaml:"signers,omitempty" json:"signers,omitempty"`
	Level   int      `yaml:"level" json:"level"`
	// DowngradedFrom is the version lock --update --allow-downgrade moved
	// the add-on down from (apiVersion v1alpha2 only; specs/stack.md 4.6).
	DowngradedFrom string        `yaml:"downgradedFrom,omitempty" json:"downgradedFrom,omitempty"`
	RequiredBy     []Requirement `yaml:"requiredBy" json:"requiredBy"`
}

// Requirement is a range (or digest) set on an add-on, and by whom: "stack"
// or "NAME@VERSION".
type Requirement struct {
	By      string        `yaml:"by" json:"by"`
	Version string        `yaml:"version,omitempty" json:"version,omitempty"`
	Digest  digest.Digest `yaml:"digest,omitempty" json:"digest,omitempty"`
}

// newLock checks the chosen graph for cycles and depth and orders it.
func newLock(nodes map[string]*node) (*Lock, error) {
	byName := map[string]*node{}
	for _, n := range nodes {
		if other, dup := byName[n.art.Name]; dup {
			return nil, fmt.Errorf("%w: add-on %s is in both %s and %s: one add-on per name", ErrResolve, n.art.Name, other.repo.Repo(), n.repo.Repo())
		}
		byName[n.art.Name] = n
	}
	deps := map[string][]string{} // name → names it depends on
	for name, n := range byName {
		for _, d := range n.art.Dependencies {
			// Every dependency was resolved in the round that settled.
			ref, _ := registry.ParseReference(d.Repository)
			deps[name] = append(deps[name], nodes[ref.Repo()].art.Name)
		}
		slices.Sort(deps[name])
	}
	levels, err := levelsOf(deps, slices.Sorted(maps.Keys(byName)))
	if err != nil {
		return nil, err
	}
	l := &Lock{APIVersion: APIVersion, Kind: KindLock, Order: order(deps, levels)}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		n := byName[name]
		a := LockedAddon{Name: name, Repository: n.repo.Repo(), Version: n.art.Version.String(), Tag: n.tag, Digest: n.art.Digest,
			Signers: canonicalSigners(n.art.Signers), Level: levels[name], DowngradedFrom: n.downgradedFrom}
		for _, q := range n.reqs {
			by := "stack"
			if q.byName != "" {
				by = strings.Replace(q.by, " ", "@", 1)
			}
			r := Requirement{By: by, Digest: q.digest}
			if q.digest == "" {
				r.Version = q.rng.String()
			}
			a.RequiredBy = append(a.RequiredBy, r)
		}
		slices.SortFunc(a.RequiredBy, func(x, y Requirement) int {
			return strings.Compare(x.By+"\x00"+x.Version+string(x.Digest), y.By+"\x00"+y.Version+string(y.Digest))
		})
		a.RequiredBy = slices.Compact(a.RequiredBy)
		l.Addons = append(l.Addons, a)
	}
	l.settleVersion()
	return l, nil
}

// settleVersion gives the lock the apiVersion of what it holds: v1alpha2
// exactly when an entry records a downgrade or its signers, so that every
// other lock stays byte for byte what it was (specs/stack.md section 4.3
// item 1).
func (l *Lock) settleVersion() {
	l.APIVersion = APIVersion
	for _, a := range l.Addons {
		if a.DowngradedFrom != "" || len(a.Signers) > 0 {
			l.APIVersion = APIVersionV1Alpha2
		}
	}
}

// levelsOf computes each add-on's level (0 without dependencies, else one
// more than its deepest dependency) and refuses cycles, naming one.
func levelsOf(deps map[string][]string, names []string) (map[string]int, error) {
	levels := map[string]int{}
	const visiting = -1
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		switch lv, ok := levels[name]; {
		case ok && lv == visiting:
			i := slices.Index(path, name)
			return fmt.Errorf("%w: dependency cycle: %s", ErrResolve, strings.Join(append(path[i:], name), " → "))
		case ok:
			return nil
		}
		levels[name] = visiting
		lv := 0
		for _, d := range deps[name] {
			if err := visit(d, append(path, name)); err != nil {
				return err
			}
			lv = max(lv, levels[d]+1)
		}
		if lv > MaxDepth {
			return fmt.Errorf("%w: %s is %d dependencies deep, more than %d", ErrResolve, name, lv, MaxDepth)
		}
		levels[name] = lv
		return nil
	}
	for _, n := range names {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return levels, nil
}

// order is the install order: dependencies first; among add-ons ready
// together, by name (Kahn's algorithm with a sorted ready set).
func order(deps map[string][]string, levels map[string]int) []string {
	waiting := map[string]int{}
	dependents := map[string][]string{}
	for name := range levels {
		waiting[name] = len(deps[name])
		for _, d := range deps[name] {
			dependents[d] = append(dependents[d], name)
		}
	}
	var ready, out []string
	for name, n := range waiting {
		if n == 0 {
			ready = append(ready, name)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		name := ready[0]
		ready = ready[1:]
		out = append(out, name)
		for _, d := range dependents[name] {
			if waiting[d]--; waiting[d] == 0 {
				ready = append(ready, d)
			}
		}
	}
	return out
}

// Marshal writes the lock canonically: two-space YAML, keys in field order.
func (l *Lock) Marshal() ([]byte, error) { return marshalYAML(l) }

// marshalYAML writes v as two-space YAML, keys in field order: the form of
// both the lock and a stack file addonpack writes.
func marshalYAML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := yamlv3.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// LockPath is the lock file beside the stack file at stackPath.
func LockPath(stackPath string) string { return filepath.Join(filepath.Dir(stackPath), LockName) }

// ReadLock reads a lock file and refuses one that is not consistent in
// itself (specs/stack.md section 4.5 item 1); the stack file's part is
// Steps' and Check's.
func ReadLock(path string) (*Lock, error) {
	b, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return parseLock(b, path)
}

// parseLock decodes and checks a lock file's bytes (validate); path names it
// in errors.
func parseLock(b []byte, path string) (*Lock, error) {
	var l Lock
	dec := yamlv3.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrStack, err)
	}
	if l.APIVersion != APIVersion && l.APIVersion != APIVersionV1Alpha2 || l.Kind != KindLock {
		return nil, fmt.Errorf("%s: %w: apiVersion/kind must be %s or %s / %s", path, ErrStack, APIVersion, APIVersionV1Alpha2, KindLock)
	}
	// A lock never holds more than a stack resolves to; a larger one (a
	// stack tarball's, say) would drive one verification and copy per entry.
	if len(l.Addons) > MaxNodes || len(l.Order) > MaxNodes {
		return nil, fmt.Errorf("%s: %w: addons (%d) and order (%d) may hold at most %d entries", path, ErrStack, len(l.Addons), len(l.Order), MaxNodes)
	}
	for i, a := range l.Addons {
		if err := a.Digest.Validate(); err != nil {
			return nil, fmt.Errorf("%s: addons[%d].digest: %w: %w", path, i, ErrStack, err)
		}
	}
	if err := l.validate(path); err != nil {
		return nil, err
	}
	return &l, nil
}

// Write writes the lock to path atomically (a temporary file renamed).
func (l *Lock) Write(path string) error {
	b, err := l.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, true)
}

// WriteText prints the install order with versions and digests, then
// "wrote PATH" (or "up to date: PATH" for a lock that was checked).
func (l *Lock) WriteText(w io.Writer, path string, checked bool) error {
	byName := map[string]LockedAddon{}
	for _, a := range l.Addons {
		byName[a.Name] = a
	}
	for _, name := range l.Order {
		a := byName[name]
		if _, err := fmt.Fprintf(w, "%-24s %-12s %s@%s\n", a.Name, a.Version, a.Repository, a.Digest); err != nil {
			return err
		}
	}
	verb := "wrote"
	if checked {
		verb = "up to date:"
	}
	_, err := fmt.Fprintf(w, "%s %s\n", verb, filepath.Clean(path))
	return err
}
