package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestPushMany publishes several add-ons in one call, signed with one key
// unlock, and keeps going past a broken one.
func TestPushMany(t *testing.T) {
	reg := testregistry.New(t)
	home := t.TempDir()
	env := map[string]string{"HOME": home, "COSIGN_PASSWORD": "batch"}
	run(t, env, "keygen", "--output-key-prefix", filepath.Join(home, "k"))
	var dirs []string
	for _, name := range []string{"alpha", "beta", "gamma"} {
		dir := filepath.Join(t.TempDir(), name)
		run(t, env, "init", dir)
		dirs = append(dirs, dir)
	}
	prefix := reg.Host() + "/addons"
	r := run(t, env, append([]string{"push", "--prefix", prefix, "--key", filepath.Join(home, "k.key")}, dirs...)...)
	if r.code != 0 || strings.Count(r.out, prefix+"/") != 3 {
		t.Fatalf("push --prefix: %+v", r)
	}
	v := run(t, env, "verify", prefix+"/alpha:0.1.0", prefix+"/beta:0.1.0", prefix+"/gamma:0.1.0", "--key", filepath.Join(home, "k.pub"), "--require-provenance", "--no-cache")
	if v.code != 0 || strings.Count(v.out, "verified ") != 3 {
		t.Fatalf("the batch is not signed with provenance: %+v", v)
	}

	broken := filepath.Join(t.TempDir(), "delta")
	run(t, env, "init", broken)
	os.WriteFile(filepath.Join(broken, "config", "defaults.yaml"), []byte("apiVersion: delta.addons.example.com/v1alpha1\nkind: DeltaConfig\nspec: {replicas: 0, message: x}\n"), 0o644)
	r = run(t, env, "push", "--prefix", prefix, dirs[0], broken)
	if r.code != commands.ExitInvalid || !strings.Contains(r.err, "FAILED "+broken) || !strings.Contains(r.out, prefix+"/alpha@sha256:") {
		t.Fatalf("a broken add-on in a batch: %+v", r)
	}
	if r := run(t, env, "push", "--prefix", prefix); r.code != commands.ExitUsage {
		t.Fatalf("--prefix without DIR: %+v", r)
	}
}
