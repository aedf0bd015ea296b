package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestScopeHostSpellings: a strict scope written for localhost:P applies to
// every spelling of that registry (issue 17 item 6): LOCALHOST:P, localhost:0P
// and localhost.:P do not fall into the catch-all scope, which needs fewer
// signatures.
func TestScopeHostSpellings(t *testing.T) {
	host := testregistry.New(t).Host() // 127.0.0.1:P
	_, port, _ := strings.Cut(host, ":")
	dir := t.TempDir()
	for _, k := range []string{"a", "b"} {
		if r := run(t, signEnv, "keygen", "--output-key-prefix", filepath.Join(dir, k)); r.code != 0 {
			t.Fatalf("keygen: %+v", r)
		}
	}
	src := newAddon(t, dir, "hello", "0.1.0")
	if r := run(t, signEnv, "push", src, host+"/addons/hello:0.1.0", "--key", filepath.Join(dir, "a.key")); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(`apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - {name: a, path: a.pub}
  - {name: b, path: b.pub}
scopes:
  - keys: [a]
  - prefix: localhost:`+port+`/addons
    keys: [a, b]
    threshold: 2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"localhost:" + port, "LOCALHOST:" + port, "LocalHost:0" + port, "localhost:00" + port, "localhost.:" + port} {
		ref := h + "/addons/hello:0.1.0"
		for _, args := range [][]string{
			{"verify", ref, "--policy", policy},
			{"render", ref, "--policy", policy},
		} {
			r := run(t, nil, args...)
			if r.code != commands.ExitVerify || !strings.Contains(r.err, "threshold") {
				t.Fatalf("%v: exit %d, want %d (the strict scope's threshold): %+v", args, r.code, commands.ExitVerify, r)
			}
		}
	}
	// The catch-all scope is for other registries: 127.0.0.1 is another name.
	if r := run(t, nil, "verify", host+"/addons/hello:0.1.0", "--policy", policy); r.code != 0 {
		t.Fatalf("verify under the catch-all scope: %+v", r)
	}
}
