package commands_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/testregistry"
)

// pushVersions publishes examples-like add-on hello at each version to
// host/addons/hello, signed with a fresh key; it returns the public key path.
func pushVersions(t *testing.T, host string, versions ...string) string {
	t.Helper()
	dir := t.TempDir()
	hello := filepath.Join(dir, "hello")
	run(t, nil, "init", hello)
	key := filepath.Join(dir, "release")
	if r := run(t, signEnv, "keygen", "--output-key-prefix", key); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	for _, v := range versions {
		a, _ := os.ReadFile(filepath.Join(hello, "addon.yaml"))
		a = bytes.Replace(a, []byte("version: 0.1.0"), []byte("version: "+v), 1)
		src := filepath.Join(dir, v)
		if err := os.CopyFS(src, os.DirFS(hello)); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(src, "addon.yaml"), a, 0o644)
		if r := run(t, signEnv, "push", src, host+"/addons/hello:"+v, "--key", key+".key"); r.code != 0 {
			t.Fatalf("push %s: %+v", v, r)
		}
	}
	return key + ".pub"
}

func TestPrune(t *testing.T) {
	for _, reg := range realregistry.Both() {
		t.Run(reg.Name, func(t *testing.T) {
			host := reg.Start(t)
			pub := pushVersions(t, host, "0.1.0", "0.2.0")
			repo := host + "/addons/hello"

			dry := run(t, nil, "prune", repo, "--keep", "1")
			if dry.code != 0 || !strings.Contains(dry.out, "dry run: nothing deleted") || !strings.Contains(dry.out, "release") {
				t.Fatalf("dry run: %+v", dry)
			}
			var out struct {
				DryRun bool
				Plan   struct {
					Delete []struct{ Kind, Release string }
				}
			}
			j := run(t, nil, "prune", repo, "--keep", "1", "-o", "json")
			if err := json.Unmarshal([]byte(j.out), &out); err != nil || j.code != 0 || !out.DryRun || len(out.Plan.Delete) < 3 {
				t.Fatalf("-o json: %v %+v", err, j)
			}
			for _, it := range out.Plan.Delete {
				if it.Release != "0.1.0" {
					t.Errorf("plan deletes %+v, not of 0.1.0", it)
				}
			}
			if v := run(t, nil, "verify", repo+":0.1.0", "--key", pub); v.code != 0 {
				t.Fatalf("a dry run deleted something: %+v", v)
			}

			y := run(t, nil, "prune", repo, "--keep", "1", "--yes")
			if y.code != 0 || !strings.Contains(y.out, "deleted release") {
				t.Fatalf("--yes: %+v", y)
			}
			if v := run(t, nil, "verify", repo+":0.1.0", "--key", pub); v.code != 4 {
				t.Errorf("0.1.0 after prune: exit %d, want 4 (not found): %+v", v.code, v)
			}
			if v := run(t, nil, "verify", repo+":0.2.0", "--key", pub); v.code != 0 {
				t.Errorf("kept 0.2.0 no longer verifies: %+v", v)
			}
			if again := run(t, nil, "prune", repo, "--keep", "1", "-o", "json"); !strings.Contains(again.out, `"delete": []`) {
				t.Errorf("second run: %+v", again)
			}
		})
	}
}

func TestPruneRefusals(t *testing.T) {
	reg := testregistry.New(t, testregistry.WithoutDeletes())
	pushVersions(t, reg.Host(), "0.1.0", "0.2.0")
	repo := reg.Host() + "/addons/hello"
	bad := filepath.Join(t.TempDir(), "pins.txt")
	os.WriteFile(bad, []byte("hello:0.1.0\n"), 0o644)
	badLock := filepath.Join(t.TempDir(), "addons.lock")
	os.WriteFile(badLock, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: StackLock\naddons: 3\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no keep rule", []string{repo}, 2, "say what to keep"},
		{"a tag, not a repository", []string{repo + ":0.1.0", "--keep", "1"}, 2, "takes a repository"},
		{"bad range", []string{repo, "--keep-range", ">>1"}, 2, "--keep-range"},
		{"unknown tag", []string{repo, "--tag", "nope"}, 4, "nope"},
		{"bad protect file", []string{repo, "--keep", "1", "--protect", bad}, 3, `"hello:0.1.0" is not a digest`},
		{"bad lock file", []string{repo, "--keep", "1", "--protect", badLock}, 3, "invalid stack"},
		{"registry without deletes", []string{repo, "--keep", "1", "--yes"}, 1, "does not allow deletes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, nil, append([]string{"prune"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.err, tc.msg) {
				t.Errorf("exit %d, want %d with %q: %+v", r.code, tc.code, tc.msg, r)
			}
		})
	}
	if r := run(t, nil, "prune", repo, "--keep", "1", "-o", "json"); !strings.Contains(r.out, `"0.1.0"`) {
		t.Errorf("after the refusals 0.1.0 is not listed: %+v", r)
	}
}
