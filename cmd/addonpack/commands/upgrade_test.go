package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/testregistry"
)

// TestUpgradePlan runs `upgrade plan` and `lock --update` on the greeter
// pair, pushed signed with the binary to the embedded registry: 0.1.0
// (GreeterConfig v1alpha1) and 0.2.0 (v1beta1, spec.message moved, at most
// 5 replicas), which is outside 0.1.0's default policy (0.x: within the
// minor version). Exit codes 10 (upgrades), 3 (a candidate breaks the
// values, naming field and rule), 0 (nothing to do) and 2 (usage), the
// JSON golden, a stack, and a downgrade refused and allowed.
func TestUpgradePlan(t *testing.T) {
	reg := testregistry.New(t)
	_, port, _ := strings.Cut(reg.Host(), ":")
	host := "localhost:" + port
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, ex := range []string{"greeter-v1", "greeter-v2"} {
		if err := os.CopyFS(filepath.Join(dir, ex), os.DirFS(filepath.Join(wd, "..", "..", "..", "examples", ex))); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	env := map[string]string{"HOME": t.TempDir()}
	signEnv := map[string]string{"HOME": env["HOME"], "COSIGN_PASSWORD": "secret"}
	for _, s := range [][]string{
		{"keygen", "--output-key-prefix", "release"},
		{"push", "./greeter-v1", host + "/addons/greeter:0.1.0", "--key", "release.key"},
		{"push", "./greeter-v2", host + "/addons/greeter:0.2.0", "--key", "release.key"},
	} {
		if r := run(t, signEnv, s...); r.code != 0 {
			t.Fatalf("%v: %+v", s, r)
		}
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	obj := "apiVersion: greeter.addons.example.com/v1alpha1\nkind: GreeterConfig\nspec:\n  message: hi\n  replicas: "
	write("ok.yaml", obj+"3\n")
	write("seven.yaml", obj+"7\n")
	ref := host + "/addons/greeter:0.1.0"

	r := run(t, env, "upgrade", "plan", ref, "--values", "ok.yaml", "--key", "release.pub", "--format", "json")
	if r.code != 10 {
		t.Fatalf("values that convert: exit %d, want 10 (upgrades available): %+v", r.code, r)
	}
	planJSON := strings.ReplaceAll(r.out, host, "REGISTRY") // compared with the golden file at the end, from wd

	r = run(t, env, "upgrade", "plan", ref, "--values", "ok.yaml", "--key", "release.pub")
	if r.code != 10 || !strings.Contains(r.out, "→ 0.2.0 (outside the policy, default patch: 0.1.x from the locked 0.1.0)") ||
		!strings.Contains(r.out, "ok.yaml: convert greeter.addons.example.com/v1alpha1 → greeter.addons.example.com/v1beta1: move message → greeting.text") ||
		!strings.Contains(r.out, "ok.yaml: converts and validates (greeter.addons.example.com/v1beta1)") {
		t.Fatalf("text: %+v", r)
	}

	r = run(t, env, "upgrade", "plan", ref, "--values", "seven.yaml", "--key", "release.pub")
	if r.code != 3 || !strings.Contains(r.err, "greeter 0.2.0: spec.replicas: spec.replicas above 5 is no longer supported") ||
		!strings.Contains(r.err, "(rule fail if has(spec.replicas) && spec.replicas > 5)") || !strings.Contains(r.out, "seven.yaml: BREAKS: spec.replicas") {
		t.Fatalf("values that hit a fail rule: want exit 3 naming field and rule: %+v", r)
	}

	if r = run(t, env, "upgrade", "plan", host+"/addons/greeter:0.2.0", "--values", "ok.yaml", "--key", "release.pub"); r.code != 0 || !strings.Contains(r.out, "up to date") {
		t.Fatalf("nothing to do: %+v", r)
	}
	for _, args := range [][]string{
		{"upgrade", "plan", "--key", "release.pub"},
		{"upgrade", "plan", ref, "--stack", "addons.yaml", "--key", "release.pub"},
		{"upgrade", "plan", host + "/addons/greeter", "--key", "release.pub"},
	} {
		if r = run(t, env, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2: %+v", args, r.code, r)
		}
	}

	// A stack locked at 0.1.0, its values the ones that break 0.2.0.
	stackFile := func(policy, rng string) {
		write("addons.yaml", "apiVersion: addonpack.dev/v1alpha2\nkind: Stack\n"+policy+"addons:\n  - repository: "+host+"/addons/greeter\n    version: '"+rng+"'\n    values: seven.yaml\n")
	}
	stackFile("", ">=0.1.0")
	if r = run(t, env, "lock", "addons.yaml", "--key", "release.pub", "--prefer", "lowest"); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	if r = run(t, env, "upgrade", "plan", "--stack", "addons.yaml", "--key", "release.pub"); r.code != 3 || !strings.Contains(r.err, "greeter 0.2.0: spec.replicas") {
		t.Fatalf("plan --stack: %+v", r)
	}
	// The default policy keeps lock --update at 0.1.0; upgrade: minor lets it move.
	if r = run(t, env, "lock", "addons.yaml", "--key", "release.pub", "--update"); r.code != 0 || !strings.Contains(r.out, "greeter                  0.1.0") {
		t.Fatalf("lock --update under the default policy: %+v", r)
	}
	stackFile("upgrade: minor\n", ">=0.1.0")
	if r = run(t, env, "lock", "addons.yaml", "--key", "release.pub", "--update"); r.code != 0 || !strings.Contains(r.out, "greeter                  0.2.0") {
		t.Fatalf("lock --update with upgrade: minor: %+v", r)
	}
	// The range narrowed below the locked version: a downgrade, refused
	// unless --allow-downgrade, which the lock records.
	stackFile("upgrade: minor\n", "<0.2.0")
	if r = run(t, env, "lock", "addons.yaml", "--key", "release.pub", "--update"); r.code != 3 || !strings.Contains(r.err, "would downgrade from the locked 0.2.0 to 0.1.0") {
		t.Fatalf("downgrade without the flag: %+v", r)
	}
	if r = run(t, env, "lock", "addons.yaml", "--key", "release.pub", "--update", "--allow-downgrade"); r.code != 0 {
		t.Fatalf("downgrade with the flag: %+v", r)
	}
	if l, _ := os.ReadFile("addons.lock"); !strings.Contains(string(l), "apiVersion: addonpack.dev/v1alpha2") || !strings.Contains(string(l), "downgradedFrom: 0.2.0") {
		t.Fatalf("the lock does not record the downgrade:\n%s", l)
	}
	if r = run(t, env, "lock", "addons.yaml", "--check"); r.code != 0 {
		t.Fatalf("lock --check of a lock with a downgrade record: %+v", r)
	}
	t.Chdir(wd)
	golden(t, "upgrade-plan.json", planJSON)
}
