package commands_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestVerifyMany verifies several references in one process, answers the
// second round from the verified-digest cache with no signature requests,
// and exits 9 when any reference fails.
func TestVerifyMany(t *testing.T) {
	reg := testregistry.New(t)
	home := t.TempDir()
	env := map[string]string{"HOME": home, "COSIGN_PASSWORD": "many"}
	if r := run(t, env, "keygen", "--output-key-prefix", filepath.Join(home, "k")); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	var refs []string
	for _, name := range []string{"a", "b", "c"} {
		src := filepath.Join(t.TempDir(), name)
		run(t, env, "init", src)
		ref := reg.Host() + "/addons/" + name + ":0.1.0"
		if r := run(t, env, "push", src, ref, "--key", filepath.Join(home, "k.key")); r.code != 0 {
			t.Fatalf("push: %+v", r)
		}
		refs = append(refs, ref)
	}
	pub := filepath.Join(home, "k.pub")
	args := append([]string{"verify"}, refs...)
	first := run(t, env, append(args, "--key", pub)...)
	if first.code != 0 || strings.Count(first.out, "verified ") != 3 || strings.Contains(first.out, "cached") {
		t.Fatalf("first round: %+v", first)
	}
	reg.ResetLog()
	second := run(t, env, append(args, "--key", pub)...)
	if second.code != 0 || strings.Count(second.out, "(cached)") != 3 {
		t.Fatalf("second round: %+v", second)
	}
	// Answered from the cache: one HEAD of each tag, nothing else.
	log := reg.Log()
	for _, l := range log {
		if l.Method != http.MethodHead || !strings.HasSuffix(l.Path, "/manifests/0.1.0") {
			t.Fatalf("a cached verification sent %s %s", l.Method, l.Path)
		}
	}
	if len(log) != len(refs) {
		t.Fatalf("a cached verification of %d references sent %d requests", len(refs), len(log))
	}

	unsigned := filepath.Join(t.TempDir(), "u")
	run(t, env, "init", unsigned)
	run(t, env, "push", unsigned, reg.Host()+"/addons/u:0.1.0")
	mixed := run(t, env, "verify", refs[0], reg.Host()+"/addons/u:0.1.0", "--key", pub, "--format", "json")
	var outcomes []struct {
		Reference string
		Verified  bool
		Error     string
	}
	if err := json.Unmarshal([]byte(mixed.out), &outcomes); err != nil || len(outcomes) != 2 {
		t.Fatalf("json: %v %+v", err, mixed)
	}
	if mixed.code != commands.ExitVerify || !outcomes[0].Verified || outcomes[1].Verified || outcomes[1].Error == "" {
		t.Fatalf("mixed batch: %+v %+v", mixed, outcomes)
	}
}
