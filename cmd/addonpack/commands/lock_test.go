package commands_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// stackWorld publishes issue 12's fixtures to host, signed: cert-manager at
// several versions with managerKey, cert-operator (which depends on it)
// with operatorKey.
type stackWorld struct {
	t                       *testing.T
	dir, host               string
	managerKey, operatorKey string // key prefixes
	n                       int    // builds so far: each build differs
}

func newStackWorld(t *testing.T, host string) *stackWorld {
	w := &stackWorld{t: t, dir: t.TempDir(), host: host}
	w.managerKey, w.operatorKey = w.keygen("manager"), w.keygen("operator")
	for _, v := range []string{"1.13.0", "1.14.0", "1.15.0-rc.1", "1.15.3", "2.0.0-alpha.1", "2.0.0"} {
		w.publish("cert-manager", v, w.managerKey)
	}
	w.publish("cert-operator", "0.1.0", w.operatorKey, "cert-manager >=1.13.0, <2.0.0")
	w.publish("cert-operator", "0.2.0", w.operatorKey, "cert-manager >=1.14.0, <2.0.0")
	return w
}

func (w *stackWorld) keygen(name string) string {
	prefix := filepath.Join(w.dir, name)
	if r := run(w.t, signEnv, "keygen", "--output-key-prefix", prefix); r.code != 0 {
		w.t.Fatalf("keygen: %+v", r)
	}
	return prefix
}

// publish builds add-on name at version with dependencies ("NAME RANGE", in
// host/addons/NAME) and pushes it to host/addons/name:version signed by key.
func (w *stackWorld) publish(name, version, key string, deps ...string) string {
	w.t.Helper()
	src, _ := w.publishTo(w.host+"/addons/"+name+":"+strings.ReplaceAll(version, "+", "_"), name, version, key, nil, deps...)
	return src
}

// publishTo is publish to any reference, with further push arguments; it
// also returns the pushed digest.
func (w *stackWorld) publishTo(ref, name, version, key string, pushArgs []string, deps ...string) (string, string) {
	w.t.Helper()
	w.n++
	src := filepath.Join(w.dir, "src", fmt.Sprintf("%s-%d", name, w.n))
	if r := run(w.t, nil, "init", src, "--name", name); r.code != 0 {
		w.t.Fatalf("init: %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(src, "addon.yaml"))
	if err != nil {
		w.t.Fatal(err)
	}
	s := strings.Replace(string(b), "version: 0.1.0", "version: "+version, 1)
	s = strings.Replace(s, "description: ", fmt.Sprintf("description: (build %d) ", w.n), 1)
	if len(deps) > 0 {
		s += "  dependencies:\n"
		for _, d := range deps {
			n, rng, _ := strings.Cut(d, " ")
			s += "    - name: " + n + "\n      repository: " + w.host + "/addons/" + n + "\n      version: \"" + rng + "\"\n"
		}
	}
	if err := os.WriteFile(filepath.Join(src, "addon.yaml"), []byte(s), 0o644); err != nil {
		w.t.Fatal(err)
	}
	r := run(w.t, signEnv, append([]string{"push", src, ref, "--key", key + ".key"}, pushArgs...)...)
	if r.code != 0 {
		w.t.Fatalf("push %s: %+v", ref, r)
	}
	m := regexp.MustCompile(`@(sha256:[0-9a-f]{64})`).FindStringSubmatch(r.out)
	if m == nil {
		w.t.Fatalf("push %s printed no digest: %+v", ref, r)
	}
	return src, m[1]
}

// policy writes a policy that trusts each repository's own key only.
func (w *stackWorld) policy() string {
	p := filepath.Join(w.dir, "policy.yaml")
	body := `apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - name: manager
    path: manager.pub
  - name: operator
    path: operator.pub
scopes:
  - prefix: ` + w.host + `/addons/cert-manager
    keys: [manager]
  - prefix: ` + w.host + `/addons/cert-operator
    keys: [operator]
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// stackFile writes addons.yaml with the given entries in a new directory.
func (w *stackWorld) stackFile(entries string) string {
	dir := w.t.TempDir()
	p := filepath.Join(dir, "addons.yaml")
	body := "apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n" + strings.ReplaceAll(entries, "HOST", w.host)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func TestLock(t *testing.T) {
	for _, reg := range bothRegistries {
		t.Run(reg.name, func(t *testing.T) {
			w := newStackWorld(t, reg.host(t))
			policy := w.policy()
			file := w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \">=0.1.0, <1.0.0\"\n")
			r := run(t, nil, "lock", file, "--policy", policy)
			if r.code != 0 {
				t.Fatalf("lock: %+v", r)
			}
			if !strings.Contains(r.out, "cert-manager             1.15.3") || !strings.Contains(r.out, "cert-operator            0.2.0") {
				t.Fatalf("lock output:\n%s", r.out)
			}
			lockPath := filepath.Join(filepath.Dir(file), "addons.lock")
			first, err := os.ReadFile(lockPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"order:\n  - cert-manager\n  - cert-operator\n", "by: cert-operator@0.2.0\n        version: '>=1.14.0, <2.0.0'", "by: stack\n        version: '>=0.1.0, <1.0.0'"} {
				if !strings.Contains(string(first), want) {
					t.Errorf("lock lacks %q:\n%s", want, first)
				}
			}
			// Reproducible: the same registry state, the same bytes.
			if r := run(t, nil, "lock", file, "--policy", policy); r.code != 0 {
				t.Fatalf("lock again: %+v", r)
			}
			if again, _ := os.ReadFile(lockPath); string(again) != string(first) {
				t.Fatalf("second lock differs:\n%s\n---\n%s", first, again)
			}
			if r := run(t, nil, "lock", file, "--check"); r.code != 0 || !strings.Contains(r.out, "up to date: "+lockPath) {
				t.Fatalf("lock --check on a fresh lock: %+v", r)
			}

			// A new release is no drift; the locked tag re-pushed with other
			// bytes is (exit 10), and so is a changed range in the stack file.
			w.publish("cert-manager", "1.15.4", w.managerKey)
			if r := run(t, nil, "lock", file, "--check"); r.code != 0 {
				t.Fatalf("a new tag alone is no drift: %+v", r)
			}
			w.publish("cert-manager", "1.15.3", w.managerKey)
			if err := os.WriteFile(file, []byte(strings.Replace(mustRead(t, file), ">=0.1.0, <1.0.0", ">=0.2.0", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			r = run(t, nil, "lock", file, "--check")
			if r.code != commands.ExitDrift || !strings.Contains(r.err, "cert-manager: tag 1.15.3 now sha256:") ||
				!strings.Contains(r.err, `cert-operator: stack requires ">=0.2.0", lock was made for ">=0.1.0, <1.0.0"`) {
				t.Fatalf("lock --check after a moved tag: %+v", r)
			}
			// --update resolves again, to the new 1.15.4.
			if r := run(t, nil, "lock", file, "--policy", policy, "--update"); r.code != 0 || !strings.Contains(r.out, "cert-manager             1.15.4") {
				t.Fatalf("lock --update: %+v", r)
			}
			if r := run(t, nil, "lock", file, "--check"); r.code != 0 {
				t.Fatalf("lock --check after --update: %+v", r)
			}
		})
	}
}

func TestLockRefusals(t *testing.T) {
	w := newStackWorld(t, testregistry.New(t).Host())
	policy := w.policy()

	// A dependency signed by the root's key, which its own scope does not
	// trust, fails although the root verifies.
	w.publish("cert-manager", "1.16.0", w.operatorKey)
	file := w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \"*\"\n")
	r := run(t, nil, "lock", file, "--policy", policy)
	if r.code != commands.ExitVerify || !strings.Contains(r.err, w.host+"/addons/cert-manager@sha256:") || !strings.Contains(r.err, "threshold not met") {
		t.Fatalf("dependency outside its scope: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(file), "addons.lock")); !os.IsNotExist(err) {
		t.Fatalf("a failed lock left a file: %v", err)
	}

	// A conflict names both ranges as chains from the stack file.
	file = w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \"0.2.0\"\n  - repository: HOST/addons/cert-manager\n    version: \"<1.14.0\"\n")
	r = run(t, nil, "lock", file, "--key", w.managerKey+".pub", "--key", w.operatorKey+".pub")
	want := `no version satisfies every range: stack requires "<1.14.0"; stack → cert-operator 0.2.0 requires ">=1.14.0, <2.0.0"`
	if r.code != commands.ExitInvalid || !strings.Contains(r.err, want) {
		t.Fatalf("conflict: %+v", r)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
