package stack

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
)

const webhookStack = "addons:\n  - repository: registry.example/addons/webhook\n    version: '*'\n"

// webhookLock resolves the webhook stack of certFixture: cert-manager
// 1.14.0 ← cert-operator 0.2.0 ← webhook 0.3.0 (testdata/webhook.lock).
func webhookLock(t *testing.T, f *fakeRegistry) (*Stack, *Lock) {
	t.Helper()
	st := writeStack(t, webhookStack)
	l, err := Resolve(t.Context(), f, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st, l
}

// entry returns a pointer to the lock's entry name.
func entry(l *Lock, name string) *LockedAddon {
	for i := range l.Addons {
		if l.Addons[i].Name == name {
			return &l.Addons[i]
		}
	}
	panic(name + " is not in the lock")
}

// clone copies a lock deeply enough for an edit.
func clone(l *Lock) *Lock {
	c := *l
	c.Addons = nil
	for _, a := range l.Addons {
		a.RequiredBy = slices.Clone(a.RequiredBy)
		c.Addons = append(c.Addons, a)
	}
	c.Order = slices.Clone(l.Order)
	return &c
}

// settle rewrites the levels and order of an edited lock as resolution
// would, so that the edit under test is the only thing wrong with it.
func settle(t *testing.T, l *Lock) {
	t.Helper()
	deps := map[string][]string{}
	var names []string
	for _, a := range l.Addons {
		names = append(names, a.Name)
		for _, r := range a.RequiredBy {
			if name, _, ok := strings.Cut(r.By, "@"); ok {
				deps[name] = append(deps[name], a.Name)
			}
		}
	}
	levels, err := levelsOf(deps, names)
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.Addons {
		l.Addons[i].Level = levels[l.Addons[i].Name]
	}
	l.Order = order(deps, levels)
}

// TestLockInvalid: hand edits that no resolution could have written are
// refused by every reader — the file reader, Steps (render, pull, copy)
// and Check (lock --check) — as ErrLock (exit 3), naming the entry.
func TestLockInvalid(t *testing.T) {
	f := certFixture()
	evil := "evil.example/addons/cert-manager"
	tests := []struct {
		name string
		edit func(l *Lock)
		msg  []string // in the message, besides the file
	}{
		{"a second cert-manager in another repository, required by the stack", func(l *Lock) {
			l.Addons = append(l.Addons, LockedAddon{Name: "cert-manager", Repository: evil, Version: "1.14.0", Tag: "1.14.0", Digest: digest.FromString("evil"), RequiredBy: []Requirement{{By: "stack", Version: "*"}}})
		}, []string{"cert-manager: invalid lock: listed twice", evil}},
		{"a second cert-manager in another repository, required by its dependent", func(l *Lock) {
			a := *entry(l, "cert-manager")
			a.Repository = evil
			l.Addons = append(l.Addons, a)
		}, []string{"cert-manager: invalid lock: listed twice", evil}},
		{"a second cert-manager in the same repository", func(l *Lock) {
			l.Addons = append(l.Addons, *entry(l, "cert-manager"))
		}, []string{"cert-manager: invalid lock: listed twice"}},
		{"another name for a locked repository", func(l *Lock) {
			a := *entry(l, "cert-manager")
			a.Name = "cert-manager-two"
			l.Addons = append(l.Addons, a)
			l.Order = append([]string{"cert-manager-two"}, l.Order...)
		}, []string{"cert-manager-two: invalid lock: repository registry.example/addons/cert-manager is also cert-manager's"}},
		{"order lists an add-on twice", func(l *Lock) {
			l.Order = append(l.Order, "webhook")
		}, []string{"order[3]: invalid lock: webhook is listed twice"}},
		{"order lists a dependency twice, first", func(l *Lock) {
			l.Order = append([]string{"cert-manager"}, l.Order...)
		}, []string{"order[1]: invalid lock: cert-manager is listed twice"}},
		{"order misses an add-on", func(l *Lock) {
			l.Order = l.Order[:2]
		}, []string{"order: invalid lock: webhook is missing"}},
		{"order misses a dependency", func(l *Lock) {
			l.Order = l.Order[1:]
		}, []string{"order[0]: invalid lock: cert-operator comes before cert-manager, which it requires"}},
		{"order names an unknown add-on", func(l *Lock) {
			l.Order = append(l.Order, "evil")
		}, []string{`order[3]: invalid lock: "evil" is not an add-on of the lock`}},
		{"order replaces an add-on by an unknown one", func(l *Lock) {
			l.Order[0] = "cert-manager-evil"
		}, []string{`order[0]: invalid lock: "cert-manager-evil" is not an add-on of the lock`}},
		{"order puts a dependent first", func(l *Lock) {
			l.Order = []string{"webhook", "cert-manager", "cert-operator"}
		}, []string{"order[0]: invalid lock: webhook comes before cert-manager, which it requires"}},
		{"order swaps two add-ons", func(l *Lock) {
			l.Order = []string{"cert-operator", "cert-manager", "webhook"}
		}, []string{"order[0]: invalid lock: cert-operator comes before cert-manager, which it requires"}},
		{"tag left at the newer release, version at an older one", func(l *Lock) {
			entry(l, "cert-manager").Version = "1.13.0"
		}, []string{"cert-manager: invalid lock: tag 1.14.0 does not claim version 1.13.0"}},
		{"tag dropped so that lock --check resolves nothing", func(l *Lock) {
			entry(l, "cert-manager").Tag = ""
		}, []string{"cert-manager: invalid lock: no tag, and no digest of the stack file pins it"}},
		{"a dependency pinned by digest", func(l *Lock) {
			a := entry(l, "cert-manager")
			a.RequiredBy[0] = Requirement{By: a.RequiredBy[0].By, Digest: a.Digest}
		}, []string{"cert-manager: invalid lock: cert-operator@0.2.0 pins digest", "only the stack file pins digests"}},
		{"a version no range admits", func(l *Lock) {
			a := entry(l, "cert-manager")
			a.Version, a.Tag = "1.15.3", "1.15.3"
		}, []string{`cert-manager: invalid lock: version 1.15.3 does not satisfy "<1.15.0", required by webhook@0.3.0`}},
		{"required by an add-on not in the lock", func(l *Lock) {
			entry(l, "cert-manager").RequiredBy[0].By = "evil@1.0.0"
		}, []string{`cert-manager: invalid lock: required by "evil@1.0.0", which is not an add-on of the lock at that version`}},
		{"required by a locked add-on at another version", func(l *Lock) {
			entry(l, "cert-manager").RequiredBy[0].By = "cert-operator@0.1.0"
		}, []string{`cert-manager: invalid lock: required by "cert-operator@0.1.0"`}},
		{"required by nobody", func(l *Lock) {
			entry(l, "cert-manager").RequiredBy = nil
		}, []string{"cert-manager: invalid lock: requiredBy is empty"}},
		{"required twice by the same add-on", func(l *Lock) {
			a := entry(l, "cert-manager")
			a.RequiredBy = append(a.RequiredBy, Requirement{By: a.RequiredBy[0].By, Version: "*"})
		}, []string{`cert-manager: invalid lock: requiredBy names "cert-operator@0.2.0" twice`}},
		{"a dependency cycle", func(l *Lock) {
			w := entry(l, "webhook")
			w.RequiredBy = append(w.RequiredBy, Requirement{By: "cert-manager@1.14.0", Version: "*"})
		}, []string{"invalid lock", "dependency cycle"}},
		{"a level that is not the graph's", func(l *Lock) {
			entry(l, "webhook").Level = 0
		}, []string{"webhook: invalid lock: level 0, but its dependencies make it 2"}},
		{"a name that leaves a directory", func(l *Lock) {
			entry(l, "webhook").Name = "../webhook"
		}, []string{`addons[2] (../webhook): invalid lock: name "../webhook" is not an add-on name`}},
		{"a repository with a tag", func(l *Lock) {
			entry(l, "webhook").Repository += ":0.3.0"
		}, []string{"webhook: invalid lock: repository \"registry.example/addons/webhook:0.3.0\" is not an OCI repository"}},
		{"a version that is not semver", func(l *Lock) {
			a := entry(l, "webhook")
			a.Version, a.Tag = "v0.3.0", ""
		}, []string{"webhook: invalid lock: version:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, l := webhookLock(t, f)
			edited := clone(l)
			tt.edit(edited)
			b, err := edited.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			path := LockPath(st.Path)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, readErr := ReadLock(path)
			_, stepsErr := Steps(st, edited)
			_, checkErr := Check(t.Context(), f, st, edited)
			_, checkLockErr := CheckLock(t.Context(), f, st, nil)
			for what, err := range map[string]error{"ReadLock": readErr, "Steps": stepsErr, "Check": checkErr, "CheckLock": checkLockErr} {
				if !errors.Is(err, ErrLock) || errors.Is(err, ErrDrift) || !errors.Is(err, errdef.ErrInvalid) {
					t.Errorf("%s: %v, want ErrLock (exit 3)", what, err)
					continue
				}
				for _, m := range append(tt.msg, path) {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("%s: %v\nwant it to say %q", what, err, m)
					}
				}
			}
		})
	}
}

// TestLockInvalidOrderTie: an order that respects every dependency but not
// resolution's tie rule (ready together: by name) is refused too.
func TestLockInvalidOrderTie(t *testing.T) {
	// Two roots that need nothing: either order is a topological one.
	f := certFixture()
	f.add("cert-operator", "0.1.0") // republished without its dependency
	st := writeStack(t, "addons:\n  - repository: registry.example/addons/cert-manager\n    version: '*'\n  - repository: registry.example/addons/cert-operator\n    version: '0.1.0'\n")
	l, err := Resolve(t.Context(), f, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Steps(st, l); err != nil || !slices.Equal(l.Order, []string{"cert-manager", "cert-operator"}) {
		t.Fatalf("the resolved lock: order %v, %v", l.Order, err)
	}
	l.Order = []string{"cert-operator", "cert-manager"}
	_, err = Steps(st, l)
	if !errors.Is(err, ErrLock) || !strings.Contains(err.Error(), "order: invalid lock: must be cert-manager, cert-operator") {
		t.Fatalf("Steps: %v", err)
	}
}

// TestLockDrift: a lock consistent in itself but not made from this stack
// file — an entry the stack file never names, a root renamed or pinned
// elsewhere — is refused by Steps as ErrDrift (exit 10) and reported by
// Check line by line, each naming the entry.
func TestLockDrift(t *testing.T) {
	f := certFixture()
	pinned := f.repos["registry.example/addons/webhook"]["0.3.0"].Digest
	extra := func(name, by string) LockedAddon {
		return LockedAddon{Name: name, Repository: "evil.example/addons/" + name, Version: "1.0.0", Tag: "1.0.0",
			Digest: digest.FromString(name), RequiredBy: []Requirement{{By: by, Version: "*"}}}
	}
	tests := []struct {
		name  string
		stack string // "" : webhookStack
		edit  func(l *Lock)
		lines []string
	}{
		{"an extra root in another repository", "", func(l *Lock) {
			l.Addons = append(l.Addons, extra("evil", "stack"))
		}, []string{"evil: locked as a root, no longer in the stack file"}},
		{"an extra add-on required only by another extra one", "", func(l *Lock) {
			l.Addons = append(l.Addons, extra("evil", "stack"), extra("evil-dep", "evil@1.0.0"))
		}, []string{"evil: locked as a root, no longer in the stack file",
			"evil-dep: locked from evil.example/addons/evil-dep, but neither the stack file nor an add-on it requires needs it"}},
		{"a chain of extra add-ons hanging from a stale root", "", func(l *Lock) {
			a, b := extra("evil-a", "evil-b@1.0.0"), extra("evil-b", "evil-c@1.0.0")
			c := extra("evil-c", "stack")
			c.RequiredBy = []Requirement{{By: "stack", Version: "*"}}
			l.Addons = append(l.Addons, a, b, c)
		}, []string{"evil-c: locked as a root, no longer in the stack file",
			"evil-a: locked from evil.example/addons/evil-a, but neither", "evil-b: locked from evil.example/addons/evil-b, but neither"}},
		{"the root renamed", "", func(l *Lock) {
			entry(l, "webhook").Name = "hook"
			for _, n := range []string{"cert-manager", "cert-operator"} {
				for i, r := range entry(l, n).RequiredBy {
					if r.By == "webhook@0.3.0" {
						entry(l, n).RequiredBy[i].By = "hook@0.3.0"
					}
				}
			}
		}, []string{`hook: the stack file expects add-on "webhook" from registry.example/addons/webhook, the lock names it "hook"`}},
		{"the root moved to another repository", "", func(l *Lock) {
			entry(l, "webhook").Repository = "evil.example/addons/webhook"
		}, []string{"registry.example/addons/webhook: in the stack file, not in the lock", "webhook: locked as a root, no longer in the stack file"}},
		{"a root pinned by digest, locked at another", "  - repository: registry.example/addons/webhook\n    digest: " + pinned.String() + "\n", func(l *Lock) {
			a := entry(l, "webhook")
			a.Digest = digest.FromString("older webhook")
			a.RequiredBy[0].Digest = a.Digest
		}, []string{"webhook: stack requires digest " + pinned.String() + ", lock was made for digest sha256:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := webhookStack
			if tt.stack != "" {
				body = "addons:\n" + tt.stack
			}
			st := writeStack(t, body)
			l, err := Resolve(t.Context(), f, st, Options{})
			if err != nil {
				t.Fatal(err)
			}
			tt.edit(l)
			settle(t, l)
			if err := l.validate("addons.lock"); err != nil {
				t.Fatalf("the edit is not consistent in itself: %v", err)
			}
			steps, err := Steps(st, l)
			if steps != nil || !errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), LockPath(st.Path)) {
				t.Fatalf("Steps: %v, want ErrDrift naming the lock", err)
			}
			drift, checkErr := Check(t.Context(), f, st, l)
			if checkErr != nil {
				t.Fatal(checkErr)
			}
			for _, line := range tt.lines {
				if !slices.ContainsFunc(drift, func(d string) bool { return strings.HasPrefix(d, line) }) {
					t.Errorf("Check: %q lacks %q", drift, line)
				}
				if !strings.Contains(err.Error(), line) {
					t.Errorf("Steps: %v\nlacks %q", err, line)
				}
			}
		})
	}
}
