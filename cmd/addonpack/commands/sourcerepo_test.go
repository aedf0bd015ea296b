package commands_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestSourceRepoHoweverCloned: a release pushed from a clone over https,
// ssh or the scp-like form satisfies --source-repo written in any of those
// forms, and never one naming another host or path.
func TestSourceRepoHoweverCloned(t *testing.T) {
	reg := testregistry.New(t)
	repo := t.TempDir()
	env := map[string]string{"HOME": t.TempDir(), "COSIGN_PASSWORD": "src"}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	src := filepath.Join(repo, "addons", "hello")
	if r := run(t, env, "init", src); r.code != 0 {
		t.Fatal(r)
	}
	git("init", "-q")
	git("remote", "add", "origin", "https://example.com/placeholder")
	git("add", ".")
	git("commit", "-qm", "hello")
	key := filepath.Join(env["HOME"], "release")
	run(t, env, "keygen", "--output-key-prefix", key)
	ref := reg.Host() + "/addons/hello:0.1.0"

	accepted := []string{
		"https://github.com/ORG/REPO", "https://github.com/ORG/REPO.git", "https://github.com/ORG/REPO/",
		"git@github.com:ORG/REPO.git", "ssh://git@github.com/ORG/REPO", "git+https://github.com/ORG/REPO",
		"https://github.com/ORG/*",
	}
	refused := []string{
		"https://github.com/ORG/OTHER", "https://gitlab.com/ORG/REPO", "https://github.com/ORG-evil/REPO",
		"https://github.com/ORG/REPO/sub", "git@github.com.evil.example:ORG/REPO.git", "https://github.com/OR*/REPO2",
		"https://github.com/ORG-evil/*",
	}
	for _, origin := range []string{
		"git@github.com:ORG/REPO.git", "ssh://git@github.com/ORG/REPO.git", "ssh://git@github.com:22/ORG/REPO",
		"https://github.com/ORG/REPO.git", "https://github.com/ORG/REPO", "https://token@GitHub.com/ORG/REPO/",
	} {
		t.Run(origin, func(t *testing.T) {
			git("remote", "set-url", "origin", origin)
			if r := run(t, env, "push", src, ref, "--key", key+".key"); r.code != 0 {
				t.Fatalf("push: %+v", r)
			}
			for _, want := range accepted {
				if r := run(t, env, "--no-cache", "verify", ref, "--key", key+".pub", "--source-repo", want); r.code != 0 {
					t.Errorf("--source-repo %s refused a release from %s: %+v", want, origin, r)
				}
			}
			for _, other := range refused {
				if r := run(t, env, "--no-cache", "verify", ref, "--key", key+".pub", "--source-repo", other); r.code != commands.ExitVerify {
					t.Errorf("--source-repo %s accepted a release from %s: %+v", other, origin, r)
				}
			}
		})
	}
}
