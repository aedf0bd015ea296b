package examples_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/testregistry"
)

// TestExampleStackLock runs examples/stack through the binary: the two
// example add-ons are pushed signed to an in-process registry (standing in
// for registry.example.com, rewritten in copies of the files), `addonpack
// lock` resolves examples/stack/addons.yaml to verified digests, a second run
// writes the same bytes, `lock --check` finds no drift, `lock --update`
// changes nothing, each locked digest renders with the stack's values, and the
// README's consumers of the lock (render --stack, as YAML and as kustomize
// directories, and pull --stack) take the add-ons in the lock's order
// (the commands of examples/stack/README.md).
func TestExampleStackLock(t *testing.T) {
	reg := testregistry.New(t)
	dir := publishExampleStack(t, reg)

	if out, code := addonpack(t, dir, nil, "lock", "stack/addons.yaml", "--key", "release.pub"); code != 0 {
		t.Fatalf("lock: exit %d\n%s", code, out)
	}
	lockPath := filepath.Join(dir, "stack", stack.LockName)
	first, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := stack.ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lock.Order, []string{"cert-manager", "cert-operator"}) {
		t.Fatalf("order %v, want cert-manager before cert-operator\n%s", lock.Order, first)
	}
	cm := lockedByName(t, lock, "cert-manager")
	if cm.Version != "1.15.3" || cm.Tag != "1.15.3" || cm.Level != 0 || cm.Digest == "" ||
		!slices.Equal(cm.RequiredBy, []stack.Requirement{{By: "cert-operator@0.9.0", Version: ">=1.14.0, <2.0.0"}}) {
		t.Errorf("cert-manager locked as %+v", cm)
	}

	if out, code := addonpack(t, dir, nil, "lock", "stack/addons.yaml", "--key", "release.pub"); code != 0 {
		t.Fatalf("second lock: exit %d\n%s", code, out)
	}
	if again, err := os.ReadFile(lockPath); err != nil || string(again) != string(first) {
		t.Fatalf("a second lock of the same registry state differs (%v):\n%s\n---\n%s", err, first, again)
	}
	if out, code := addonpack(t, dir, nil, "lock", "stack/addons.yaml", "--check"); code != 0 {
		t.Fatalf("lock --check right after lock: exit %d\n%s", code, out)
	}
	if out, code := addonpack(t, dir, nil, "lock", "stack/addons.yaml", "--key", "release.pub", "--update"); code != 0 {
		t.Fatalf("lock --update: exit %d\n%s", code, out)
	}
	if again, err := os.ReadFile(lockPath); err != nil || string(again) != string(first) {
		t.Fatalf("lock --update of the same registry state changed the lock (%v):\n%s\n---\n%s", err, first, again)
	}

	// Each locked digest alone, dependencies first.
	for _, name := range lock.Order {
		la := lockedByName(t, lock, name)
		args := []string{"render", la.Repository + "@" + la.Digest.String(), "--key", "release.pub"}
		if name == "cert-operator" {
			args = append(args, "--values", "stack/cert-operator.yaml")
		}
		out, code := addonpack(t, dir, nil, args...)
		if code != 0 {
			t.Fatalf("render %s: exit %d\n%s", name, code, out)
		}
		if name == "cert-operator" && !strings.Contains(out, "--log-level=warn") {
			t.Errorf("cert-operator rendered without stack/cert-operator.yaml")
		}
	}

	// The README's consumers of the lock.
	out, code := addonpack(t, dir, nil, "render", "--stack", "stack/addons.yaml", "--key", "release.pub")
	manager, operator := strings.Index(out, "# cert-manager 1.15.3 ("), strings.Index(out, "# cert-operator 0.9.0 (")
	if code != 0 || manager < 0 || operator < manager || !strings.Contains(out[operator:], "--log-level=warn") {
		t.Fatalf("render --stack: exit %d, want cert-manager then cert-operator with stack/cert-operator.yaml:\n%s", code, out)
	}
	for _, c := range []struct {
		args  []string
		order string
	}{
		{[]string{"render", "--stack", "stack/addons.yaml", "--key", "release.pub", "--format", "kustomize", "-o", "stack-rendered"}, "01-cert-manager\n02-cert-operator\n"},
		{[]string{"pull", "--stack", "stack/addons.yaml", "--key", "release.pub", "-o", "stack-pulled"}, "cert-manager\ncert-operator\n"},
	} {
		if out, code := addonpack(t, dir, nil, c.args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", strings.Join(c.args, " "), code, out)
		}
		if order, err := os.ReadFile(filepath.Join(dir, c.args[len(c.args)-1], stack.OrderFile)); err != nil || string(order) != c.order {
			t.Errorf("%s: order.txt %q (%v), want %q", strings.Join(c.args, " "), order, err, c.order)
		}
	}
}

// publishExampleStack pushes the example add-ons cert-manager 1.15.3 and
// cert-operator 0.9.0 signed with release.key to reg, and copies
// examples/stack to DIR/stack with registry.example.com rewritten to reg (in
// cert-operator's dependency too). It returns DIR, which holds release.pub.
func publishExampleStack(t *testing.T, reg *testregistry.Registry) string {
	t.Helper()
	dir := t.TempDir()
	keygen(t, dir, "release")
	env := []string{"COSIGN_PASSWORD=" + testPassword}
	rewrite := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(b), "registry.example.com/addons/", reg.Host()+"/addons/")
		if err := os.WriteFile(to, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []struct{ name, version string }{{"cert-manager", "1.15.3"}, {"cert-operator", "0.9.0"}} {
		copyDir(t, a.name, filepath.Join(dir, a.name))
		rewrite(filepath.Join(a.name, "addon.yaml"), filepath.Join(dir, a.name, "addon.yaml"))
		if out, code := addonpack(t, dir, env, "push", "./"+a.name, reg.Host()+"/addons/"+a.name+":"+a.version, "--key", "release.key"); code != 0 {
			t.Fatalf("push %s: exit %d\n%s", a.name, code, out)
		}
	}
	copyDir(t, "stack", filepath.Join(dir, "stack"))
	rewrite(filepath.Join("stack", "addons.yaml"), filepath.Join(dir, "stack", "addons.yaml"))
	return dir
}
