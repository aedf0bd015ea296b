package stack

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
)

// ErrLock reports a lock that no resolution could have written: not
// consistent in itself, or not with the signed add-ons it names
// (specs/stack.md section 4.5, items 1 and 3). A lock is a committed file
// anyone with write access can edit; it is refused, never repaired.
var ErrLock = errdef.New(errdef.ErrInvalid, "invalid lock")

// dnsLabel is the rule of metadata.name (specs/schemas/addon.schema.json).
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// validate refuses a lock that is not consistent in itself
// (specs/stack.md section 4.5 item 1); path names it in errors. It does not
// need the stack file: it is what every reader checks first, prune's pins
// included.
func (l *Lock) validate(path string) error {
	bad := func(name, format string, args ...any) error {
		return fmt.Errorf("%s: %s: %w: %s", path, name, ErrLock, fmt.Sprintf(format, args...))
	}
	byName := make(map[string]int, len(l.Addons))
	byRepo := make(map[string]int, len(l.Addons))
	versions := make([]semver.Version, len(l.Addons))
	for i, a := range l.Addons {
		who := fmt.Sprintf("addons[%d] (%s)", i, a.Name)
		if !dnsLabel.MatchString(a.Name) {
			return bad(who, "name %q is not an add-on name (a DNS-1123 label)", a.Name)
		}
		if j, dup := byName[a.Name]; dup {
			return bad(a.Name, "listed twice (addons[%d] in %s, addons[%d] in %s): a lock holds one entry per add-on", j, l.Addons[j].Repository, i, a.Repository)
		}
		byName[a.Name] = i
		ref, err := registry.ParseReference(a.Repository)
		if err != nil || ref.Tag != "" || ref.Digest != "" || ref.Repo() != a.Repository {
			return bad(a.Name, "repository %q is not an OCI repository as resolution writes it (registry/path, without tag or digest)", a.Repository)
		}
		if j, dup := byRepo[a.Repository]; dup {
			return bad(a.Name, "repository %s is also %s's: one add-on per repository", a.Repository, l.Addons[j].Name)
		}
		byRepo[a.Repository] = i
		if versions[i], err = semver.Parse(a.Version); err != nil {
			return bad(a.Name, "version: %v", err)
		}
		if err := a.Digest.Validate(); err != nil || a.Digest.Algorithm() != digest.SHA256 {
			return bad(a.Name, "digest %q is not a sha256 digest", a.Digest)
		}
		if a.Tag != "" {
			if _, err := registry.ParseReference(a.Repository + ":" + a.Tag); err != nil {
				return bad(a.Name, "tag %q: %v", a.Tag, err)
			}
			if v, ok := spec.TagVersion(a.Tag); !ok || v != a.Version {
				return bad(a.Name, "tag %s does not claim version %s: resolution locks the tag that names the version", a.Tag, a.Version)
			}
		}
	}
	for _, a := range l.Addons {
		if err := l.checkSigners(a); err != nil {
			return bad(a.Name, "%v", err)
		}
	}
	if err := l.checkDowngrades(versions, bad); err != nil {
		return err
	}
	if err := l.checkAPIVersionNeeded(bad); err != nil {
		return err
	}
	deps := map[string][]string{} // name → the entries it requires
	for i, a := range l.Addons {
		if err := l.checkRequirements(a, versions[i], byName, deps); err != nil {
			return bad(a.Name, "%v", err)
		}
	}
	for name := range deps {
		slices.Sort(deps[name]) // a cycle is named the same way each time
	}
	levels, err := levelsOf(deps, slices.Sorted(maps.Keys(byName)))
	if err != nil {
		return fmt.Errorf("%s: %w: %w", path, ErrLock, err)
	}
	for _, a := range l.Addons {
		if a.Level != levels[a.Name] {
			return bad(a.Name, "level %d, but its dependencies make it %d", a.Level, levels[a.Name])
		}
	}
	return checkOrder(l, deps, levels, bad)
}

// checkRequirements checks one entry's requiredBy against the lock, and
// records who requires it in deps.
func (l *Lock) checkRequirements(a LockedAddon, v semver.Version, byName map[string]int, deps map[string][]string) error {
	if len(a.RequiredBy) == 0 {
		return fmt.Errorf("requiredBy is empty: neither the stack file nor another add-on requires it")
	}
	seen := map[string]bool{}
	pinned := false
	for _, r := range a.RequiredBy {
		if seen[r.By] {
			return fmt.Errorf("requiredBy names %q twice", r.By)
		}
		seen[r.By] = true
		if (r.Version == "") == (r.Digest == "") {
			return fmt.Errorf("requirement by %q: give exactly one of version and digest", r.By)
		}
		if r.By != "stack" {
			name, ver, _ := strings.Cut(r.By, "@")
			j, known := byName[name]
			switch {
			case !known || l.Addons[j].Version != ver:
				return fmt.Errorf("required by %q, which is not an add-on of the lock at that version", r.By)
			case name == a.Name:
				return fmt.Errorf("requires itself")
			case r.Digest != "":
				return fmt.Errorf("%s pins digest %s: only the stack file pins digests", r.By, r.Digest)
			}
			deps[name] = append(deps[name], a.Name)
		}
		if r.Digest != "" {
			pinned = true
			if r.Digest != a.Digest {
				return fmt.Errorf("the stack pins digest %s, but the entry locks %s", r.Digest, a.Digest)
			}
			continue
		}
		rng, err := semver.ParseRange(r.Version)
		if err != nil {
			return fmt.Errorf("requirement by %q: %w", r.By, err)
		}
		if !rng.Match(v) {
			return fmt.Errorf("version %s does not satisfy %q, required by %s", a.Version, r.Version, r.By)
		}
	}
	switch {
	case pinned && a.Tag != "":
		return fmt.Errorf("pinned by digest, yet it carries tag %s", a.Tag)
	case !pinned && a.Tag == "":
		return fmt.Errorf("no tag, and no digest of the stack file pins it: resolution locks the tag it chose")
	}
	return nil
}

// checkOrder refuses an order that is not exactly the one resolution writes
// (section 4.2 item 6), naming the first entry that breaks it.
func checkOrder(l *Lock, deps map[string][]string, levels map[string]int, bad func(name, format string, args ...any) error) error {
	placed := map[string]bool{}
	for i, name := range l.Order {
		who := fmt.Sprintf("order[%d]", i)
		if _, ok := levels[name]; !ok {
			return bad(who, "%q is not an add-on of the lock", name)
		}
		if placed[name] {
			return bad(who, "%s is listed twice", name)
		}
		for _, d := range deps[name] {
			if !placed[d] {
				return bad(who, "%s comes before %s, which it requires", name, d)
			}
		}
		placed[name] = true
	}
	for _, a := range l.Addons {
		if !placed[a.Name] {
			return bad("order", "%s is missing", a.Name)
		}
	}
	if want := order(deps, levels); !slices.Equal(want, l.Order) {
		return bad("order", "must be %s (dependencies first; among add-ons ready together, by name)", strings.Join(want, ", "))
	}
	return nil
}

// checkDowngrades refuses a downgrade record no lock --update could have
// written (specs/stack.md section 4.5 item 1.6).
func (l *Lock) checkDowngrades(versions []semver.Version, bad func(name, format string, args ...any) error) error {
	for i, a := range l.Addons {
		if a.DowngradedFrom == "" {
			continue
		}
		from, err := semver.Parse(a.DowngradedFrom)
		switch {
		case l.APIVersion != APIVersionV1Alpha2:
			return bad(a.Name, "downgradedFrom needs apiVersion %s", APIVersionV1Alpha2)
		case err != nil:
			return bad(a.Name, "downgradedFrom: %v", err)
		case from.Compare(versions[i]) <= 0:
			return bad(a.Name, "downgradedFrom %s is not above the locked version %s", a.DowngradedFrom, a.Version)
		case a.Tag == "":
			return bad(a.Name, "downgradedFrom on an entry pinned by digest: only lock --update moves a tagged entry down")
		}
	}
	return nil
}

// checkAPIVersionNeeded refuses a v1alpha2 lock that records neither a
// downgrade nor signers: settleVersion writes such a lock as v1alpha1
// (specs/stack.md section 4.3 item 1 and 4.5 item 1.6).
func (l *Lock) checkAPIVersionNeeded(bad func(name, format string, args ...any) error) error {
	if l.APIVersion != APIVersionV1Alpha2 {
		return nil
	}
	if slices.ContainsFunc(l.Addons, func(a LockedAddon) bool { return a.DowngradedFrom != "" || len(a.Signers) > 0 }) {
		return nil
	}
	return bad("apiVersion", "%s, but no entry records a downgrade or signers: such a lock is written as %s", APIVersionV1Alpha2, APIVersion)
}
