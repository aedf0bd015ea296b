package stack

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/semver"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		policy, locked, v string
		want              bool
	}{
		{"", "1.4.2", "1.4.9", true},          // default ≥ 1.0.0: within the major version
		{"", "1.4.2", "1.9.0", true},          //
		{"", "1.4.2", "2.0.0", false},         //
		{"", "1.4.2", "2.0.0-rc.1", false},    // a pre-release of the next major is outside
		{"", "0.3.1", "0.3.7", true},          // default 0.x: within the minor version
		{"", "0.3.1", "0.4.0", false},         //
		{"patch", "1.4.2", "1.4.3", true},     //
		{"patch", "1.4.2", "1.5.0", false},    //
		{"patch", "1.4.2", "1.4.0", true},     // a window: it bounds a downgrade too
		{"minor", "0.3.1", "0.9.0", true},     //
		{"minor", "0.3.1", "1.0.0", false},    //
		{"minor", "1.4.2", "1.3.0", true},     //
		{"major", "0.3.1", "7.0.0", true},     //
		{"major", "1.4.2", "0.1.0", true},     //
		{"patch", "1.4.2", "1.4.2+aws", true}, // build metadata takes no part
	}
	for _, tt := range tests {
		if got := Within(tt.policy, semver.MustParse(tt.locked), semver.MustParse(tt.v)); got != tt.want {
			t.Errorf("Within(%q, %s, %s) = %v, want %v", tt.policy, tt.locked, tt.v, got, tt.want)
		}
	}
	if got := DescribePolicy("", semver.MustParse("0.3.1")); got != "default patch: 0.3.x from the locked 0.3.1" {
		t.Errorf("DescribePolicy: %q", got)
	}
}

// writeStackV2 writes an addonpack.dev/v1alpha2 stack file and loads it.
func writeStackV2(t *testing.T, dir, body string) *Stack {
	t.Helper()
	path := filepath.Join(dir, "addons.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: addonpack.dev/v1alpha2\nkind: Stack\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return st
}

// policyFixture has a 1.x add-on (app) and a 0.x one (lib, app's dependency).
func policyFixture() *fakeRegistry {
	f := &fakeRegistry{}
	for _, v := range []string{"1.4.2", "1.4.3", "1.5.0", "2.0.0"} {
		f.add("app", v, "lib >=0.1.0")
	}
	for _, v := range []string{"0.3.1", "0.3.4", "0.4.0", "1.0.0"} {
		f.add("lib", v)
	}
	return f
}

func TestUpdateLockPolicy(t *testing.T) {
	tests := []struct {
		name, stack string
		want        string // NAME@VERSION in install order after lock --update
	}{{
		name:  "defaults: within the major for 1.x, within the minor for 0.x",
		stack: "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n",
		want:  "lib@0.3.4 app@1.5.0",
	}, {
		name:  "an entry's policy",
		stack: "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n    upgrade: patch\n",
		want:  "lib@0.3.4 app@1.4.3",
	}, {
		name:  "the stack's policy for every entry and for dependencies",
		stack: "upgrade: major\naddons:\n  - repository: registry.example/addons/app\n    version: '*'\n",
		want:  "lib@1.0.0 app@2.0.0",
	}, {
		name:  "the entry's policy wins over the stack's; the dependency keeps the stack's",
		stack: "upgrade: minor\naddons:\n  - repository: registry.example/addons/app\n    version: '*'\n    upgrade: patch\n",
		want:  "lib@0.4.0 app@1.4.3",
	}, {
		name:  "a range still narrows within the policy",
		stack: "upgrade: major\naddons:\n  - repository: registry.example/addons/app\n    version: '<1.5.0'\n",
		want:  "lib@1.0.0 app@1.4.3",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			st := writeStackV2(t, dir, tt.stack)
			// The lock as it was made before the newer releases appeared.
			old := &fakeRegistry{}
			old.add("app", "1.4.2", "lib >=0.1.0")
			old.add("lib", "0.3.1")
			if _, err := WriteLock(t.Context(), old, st, Options{}); err != nil {
				t.Fatal(err)
			}
			l, err := UpdateLock(t.Context(), policyFixture(), st, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := installed(l); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			// Without a lock, the first resolution is unbounded.
			if err := os.Remove(LockPath(st.Path)); err != nil {
				t.Fatal(err)
			}
			l, err = UpdateLock(t.Context(), policyFixture(), st, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := installed(l); !strings.HasSuffix(got, "app@2.0.0") && !strings.Contains(tt.stack, "<1.5.0") {
				t.Errorf("fresh resolution: got %s, want app@2.0.0", got)
			}
		})
	}
}

func installed(l *Lock) string {
	by := map[string]string{}
	for _, a := range l.Addons {
		by[a.Name] = a.Version
	}
	var out []string
	for _, n := range l.Order {
		out = append(out, n+"@"+by[n])
	}
	return strings.Join(out, " ")
}

func TestUpdateLockPolicyRefusal(t *testing.T) {
	dir := t.TempDir()
	old := &fakeRegistry{}
	old.add("app", "1.4.2")
	if _, err := WriteLock(t.Context(), old, writeStackV2(t, dir, "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n"), Options{}); err != nil {
		t.Fatal(err)
	}
	// The stack now asks for 2.x, beyond the default policy of 1.4.2.
	st := writeStackV2(t, dir, "addons:\n  - repository: registry.example/addons/app\n    version: '>=2.0.0'\n")
	next := &fakeRegistry{}
	next.add("app", "1.4.2")
	next.add("app", "2.0.0")
	_, err := UpdateLock(t.Context(), next, st, nil, Options{})
	if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "default minor: 1.x from the locked 1.4.2") || !strings.Contains(err.Error(), "2.0.0 would") {
		t.Fatalf("want ErrPolicy naming the policy and 2.0.0, got %v", err)
	}
	// lock without --update leaves the policy.
	if l, err := WriteLock(t.Context(), next, st, Options{}); err != nil || l.Addons[0].Version != "2.0.0" {
		t.Fatalf("lock: %v %v", l, err)
	}
}

func TestUpdateLockDowngrade(t *testing.T) {
	dir := t.TempDir()
	st := writeStackV2(t, dir, "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n")
	f := &fakeRegistry{}
	f.add("app", "1.4.0")
	f.add("app", "1.4.2")
	if _, err := WriteLock(t.Context(), f, st, Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(LockPath(st.Path))
	// The tag of the locked version was deleted.
	delete(f.repos["registry.example/addons/app"], "1.4.2")
	_, err := UpdateLock(t.Context(), f, st, nil, Options{})
	if !errors.Is(err, ErrDowngrade) || !strings.Contains(err.Error(), "would downgrade from the locked 1.4.2 to 1.4.0") {
		t.Fatalf("want ErrDowngrade, got %v", err)
	}
	if after, _ := os.ReadFile(LockPath(st.Path)); string(after) != string(before) {
		t.Fatal("a refused update rewrote the lock")
	}
	l, err := UpdateLock(t.Context(), f, st, nil, Options{AllowDowngrade: true})
	if err != nil {
		t.Fatal(err)
	}
	if a := l.Addons[0]; a.Version != "1.4.0" || a.DowngradedFrom != "1.4.2" || l.APIVersion != APIVersionV1Alpha2 {
		t.Fatalf("got %+v in %s", a, l.APIVersion)
	}
	b, _ := os.ReadFile(LockPath(st.Path))
	golden(t, "downgraded.lock", b)
	back, err := ReadLock(LockPath(st.Path))
	if err != nil || back.Addons[0].DowngradedFrom != "1.4.2" {
		t.Fatalf("read back: %v %+v", err, back)
	}
	// The record stays while the entry stays; it goes when it moves on.
	if l, err = UpdateLock(t.Context(), f, st, nil, Options{}); err != nil || l.Addons[0].DowngradedFrom != "1.4.2" {
		t.Fatalf("kept: %v %+v", err, l)
	}
	f.add("app", "1.4.5")
	if l, err = UpdateLock(t.Context(), f, st, nil, Options{}); err != nil || l.Addons[0].Version != "1.4.5" || l.Addons[0].DowngradedFrom != "" || l.APIVersion != APIVersion {
		t.Fatalf("moved on: %v %+v", err, l)
	}
	// --allow-downgrade still picks the highest: no downgrade when 1.4.5 fits.
	if l, err = UpdateLock(t.Context(), f, st, nil, Options{AllowDowngrade: true}); err != nil || l.Addons[0].Version != "1.4.5" {
		t.Fatalf("allow, nothing lower needed: %v %+v", err, l)
	}
}

func TestStackUpgradeField(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\nupgrade: patch\naddons:\n  - repository: r.example/a\n    version: '*'\n", "upgrade: invalid stack: an upgrade policy needs apiVersion addonpack.dev/v1alpha2"},
		{"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: r.example/a\n    version: '*'\n    upgrade: major\n", "addons[0].upgrade: invalid stack: an upgrade policy needs apiVersion addonpack.dev/v1alpha2"},
		{"apiVersion: addonpack.dev/v1alpha2\nkind: Stack\naddons:\n  - repository: r.example/a\n    version: '*'\n    upgrade: latest\n", `addons[0].upgrade: invalid stack: "latest" is not an upgrade policy`},
		{"apiVersion: addonpack.dev/v1alpha3\nkind: Stack\naddons:\n  - repository: r.example/a\n    version: '*'\n", "must be addonpack.dev/v1alpha1 or addonpack.dev/v1alpha2 / Stack"},
	} {
		_, err := Parse([]byte(tt.body), "addons.yaml")
		if !errors.Is(err, ErrStack) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.body, err, tt.want)
		}
	}
	st, err := Parse([]byte("apiVersion: addonpack.dev/v1alpha2\nkind: Stack\nupgrade: minor\naddons:\n  - repository: r.example/a\n    version: '*'\n    upgrade: patch\n  - repository: r.example/b\n    version: '*'\n"), "addons.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if st.UpgradePolicy("r.example/a") != "patch" || st.UpgradePolicy("r.example/b") != "minor" || st.UpgradePolicy("r.example/dep") != "minor" {
		t.Error("UpgradePolicy: the entry's, else the stack's")
	}
	b, err := st.Marshal()
	if err != nil || !strings.Contains(string(b), "upgrade: patch") || !strings.Contains(string(b), "\nupgrade: minor") {
		t.Errorf("Marshal keeps the policies: %v\n%s", err, b)
	}
}
