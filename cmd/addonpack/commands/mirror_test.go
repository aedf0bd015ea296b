package commands_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestMirrorCommand runs `addonpack mirror` in the quick start's world
// (hello 0.1.0 and 0.2.0 signed with release.key): --dry-run writes no
// tag; a run copies both (JSON states), a second says "nothing to copy";
// a moved upstream tag exits 10 naming both digests until --force; an
// unsigned upstream release exits 9 and is not tagged; a bad file exits 3.
func TestMirrorCommand(t *testing.T) {
	reg := testregistry.New(t)
	_, port, _ := strings.Cut(reg.Host(), ":")
	host := "localhost:" + port
	env := map[string]string{"HOME": t.TempDir()}
	world := helpWorld(t, env, host)
	t.Chdir(world)
	signEnv := map[string]string{"HOME": env["HOME"], "COSIGN_PASSWORD": "secret"}
	tagged := func(ref string) string {
		r := run(t, env, "inspect", ref, "-o", "json")
		var v struct{ Digest string }
		_ = json.Unmarshal([]byte(r.out), &v)
		return v.Digest
	}
	mirrored := host + "/mirror/addons/hello:0.1.0"

	if r := run(t, env, "mirror", "mirror.yaml", "--dry-run"); r.code != 0 || strings.Count(r.out, "would copy  ") != 2 || tagged(mirrored) != "" {
		t.Fatalf("--dry-run: %+v (destination %q)", r, tagged(mirrored))
	}
	r := run(t, env, "mirror", "mirror.yaml", "-o", "json", "--concurrency", "1")
	var res struct {
		Releases []struct{ Tag, State, Digest string }
		Summary  struct{ Copied int }
	}
	if err := json.Unmarshal([]byte(r.out), &res); r.code != 0 || err != nil || res.Summary.Copied != 2 || res.Releases[0].State != "copied" {
		t.Fatalf("first run: %+v (%v)", r, err)
	}
	if tagged(mirrored) != res.Releases[0].Digest {
		t.Fatalf("%s points at %q, want %s", mirrored, tagged(mirrored), res.Releases[0].Digest)
	}
	if r := run(t, env, "mirror", "mirror.yaml"); r.code != 0 || !strings.Contains(r.out, "nothing to copy") {
		t.Fatalf("second run: %+v", r)
	}

	// Upstream 0.1.0 moves to another build.
	if err := os.WriteFile(filepath.Join("hello", "NOTES.txt"), []byte("rebuilt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, signEnv, "push", "./hello", host+"/addons/hello:0.1.0", "--key", "release.key"); r.code != 0 {
		t.Fatalf("push the rebuild: %+v", r)
	}
	moved := tagged(host + "/addons/hello:0.1.0")
	r = run(t, env, "mirror", "mirror.yaml")
	if r.code != commands.ExitDrift || !strings.Contains(r.err, moved) || !strings.Contains(r.err, res.Releases[0].Digest) || !strings.Contains(r.out, "drift") {
		t.Fatalf("moved tag: %+v, want exit 10 naming %s and %s", r, moved, res.Releases[0].Digest)
	}
	if tagged(mirrored) != res.Releases[0].Digest {
		t.Fatal("drift overwrote the destination tag")
	}
	if r := run(t, env, "mirror", "mirror.yaml", "--force"); r.code != 0 || tagged(mirrored) != moved {
		t.Fatalf("--force: %+v, destination %q", r, tagged(mirrored))
	}

	// An unsigned upstream release.
	if r := run(t, env, "push", "./hello", host+"/unsigned/hello:0.1.0"); r.code != 0 {
		t.Fatalf("push unsigned: %+v", r)
	}
	body, _ := os.ReadFile("mirror.yaml")
	os.WriteFile("unsigned.yaml", []byte(strings.Replace(string(body), "/addons/hello", "/unsigned/hello", 1)), 0o644)
	if r := run(t, env, "mirror", "unsigned.yaml"); r.code != commands.ExitVerify || !strings.Contains(r.out, "refused") || tagged(host+"/mirror/unsigned/hello:0.1.0") != "" {
		t.Fatalf("unsigned: %+v", r)
	}
	os.WriteFile("bad.yaml", []byte(strings.Replace(string(body), "versions:", "versionz:", 1)), 0o644)
	if r := run(t, env, "mirror", "bad.yaml"); r.code != commands.ExitInvalid || !strings.Contains(r.err, "versionz") {
		t.Fatalf("bad file: %+v", r)
	}
}
