package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/testregistry"
)

const ciStackWorkflow = "ci/github-actions-stack.yaml"

// newStackGHRun prepares a consumer's repository as actions/checkout leaves it
// for event: the stack file, its lock and values from src, the publishers'
// key as cosign.pub, origin a local bare repository (ORIGIN, returned) and a
// gh on PATH that records its arguments in GHLOG (returned).
func newStackGHRun(t *testing.T, src, event string) (r *ghRun, origin, ghLog string) {
	t.Helper()
	root := t.TempDir()
	r = &ghRun{
		workspace: filepath.Join(root, "work", "cluster-config"),
		temp:      filepath.Join(root, "runner-temp"),
		home:      filepath.Join(root, "home"),
		goShimLog: filepath.Join(root, "go-install.log"),
	}
	for _, d := range []string{r.workspace, filepath.Join(r.temp, "shim"), r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"addons.yaml", stack.LockName, "cert-operator.yaml"} {
		copyFile(t, filepath.Join(src, "stack", f), filepath.Join(r.workspace, f))
	}
	copyFile(t, filepath.Join(src, "release.pub"), filepath.Join(r.workspace, "cosign.pub"))
	origin = filepath.Join(root, "origin.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", origin).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	sha := gitCommit(t, r.workspace, origin)
	ghLog = filepath.Join(root, "gh.log")
	writeExecutable(t, filepath.Join(r.temp, "shim", "gh"), "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '"+ghLog+"'\n")
	r.github = map[string]string{"event_name": event, "repository": ciRepo, "sha": sha}
	r.secrets = map[string]string{"GITHUB_TOKEN": ciToken}
	return r, origin, ghLog
}

// TestUseCaseCIStackWorkflow runs examples/ci/github-actions-stack.yaml step by
// step against a registry holding the example stack, locked: a pull request
// passes the check and renders; a scheduled run changes nothing. Then a tag
// is moved (cert-manager 1.15.3 pushed again with other content): a pull
// request fails in "Check the lock" naming the drift (lock --check exits 10),
// and a scheduled run updates the lock, pushes it to the update branch and
// opens a pull request.
func TestUseCaseCIStackWorkflow(t *testing.T) {
	wf, _ := loadWorkflowFile(t, ciStackWorkflow)
	if _, ok := wf.On["pull_request"]; !ok || len(wf.On["schedule"].Schedule) != 1 || len(wf.On) != 3 {
		t.Errorf("triggers %+v: want pull_request, one schedule and workflow_dispatch", wf.On)
	}
	if _, ok := wf.On["workflow_dispatch"]; !ok {
		t.Errorf("triggers %+v: no workflow_dispatch", wf.On)
	}
	reg := testregistry.New(t)
	src := publishExampleStack(t, reg)
	if out, code := addonpack(t, src, nil, "lock", "stack/addons.yaml", "--key", "release.pub"); code != 0 {
		t.Fatalf("lock: exit %d\n%s", code, out)
	}
	locked, err := os.ReadFile(filepath.Join(src, "stack", stack.LockName))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("pull request, locked", func(t *testing.T) {
		r, _, _ := newStackGHRun(t, src, "pull_request")
		if failed, out := r.runWorkflow(t, wf); failed != "" {
			t.Fatalf("step %q failed:\n%s", failed, out)
		}
		if want := []string{"actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8", "actions/setup-go@44694675825211faa026b3c33043df3e48a5fa00",
			"Install addonpack", "Check the lock", "Render the stack"}; !slices.Equal(r.ranSteps, want) {
			t.Errorf("ran %q, want %q", r.ranSteps, want)
		}
		order, err := os.ReadFile(filepath.Join(r.temp, "stack", stack.OrderFile))
		if err != nil || !regexp.MustCompile(`^01-cert-manager\S*\n02-cert-operator\S*\n$`).Match(order) {
			t.Errorf("rendered order.txt %q (%v)", order, err)
		}
	})
	t.Run("schedule, nothing moved", func(t *testing.T) {
		r, _, ghLog := newStackGHRun(t, src, "schedule")
		failed, out := r.runWorkflow(t, wf)
		if failed != "" {
			t.Fatalf("step %q failed:\n%s", failed, out)
		}
		if !slices.Contains(r.ranSteps, "Plan upgrades") || !strings.Contains(r.logs["Plan upgrades"], "nothing to upgrade") {
			t.Errorf("the scheduled run did not plan the upgrades (ran %q):\n%s", r.ranSteps, r.logs["Plan upgrades"])
		}
		if got, _ := os.ReadFile(filepath.Join(r.workspace, stack.LockName)); string(got) != string(locked) {
			t.Errorf("lock --update of an unmoved registry changed the lock:\n%s", got)
		}
		if _, err := os.Stat(ghLog); err == nil {
			t.Error("a pull request was opened although the lock did not change")
		}
	})

	// Move the tag: cert-manager 1.15.3 again, with other bytes.
	cm := filepath.Join(src, "cert-manager", "namespace.yaml")
	b, err := os.ReadFile(cm)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cm, append(b, []byte("# rebuilt\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	pushed, code := addonpack(t, src, []string{"COSIGN_PASSWORD=" + testPassword}, "push", "./cert-manager", reg.Host()+"/addons/cert-manager:1.15.3", "--key", "release.key")
	if code != 0 {
		t.Fatalf("re-push: exit %d\n%s", code, pushed)
	}
	moved := regexp.MustCompile(`@(sha256:[0-9a-f]{64})`).FindStringSubmatch(pushed)
	if moved == nil || strings.Contains(string(locked), moved[1]) {
		t.Fatalf("the re-push did not move the tag: %s", pushed)
	}

	t.Run("pull request, tag moved", func(t *testing.T) {
		r, _, _ := newStackGHRun(t, src, "pull_request")
		failed, out := r.runWorkflow(t, wf)
		if failed != "Check the lock" {
			t.Fatalf("failed step %q, want %q:\n%s", failed, "Check the lock", out)
		}
		if !strings.Contains(out, "cert-manager") || !strings.Contains(out, "1.15.3") || !strings.Contains(out, moved[1]) {
			t.Errorf("the check does not name the drift (cert-manager, tag 1.15.3, now %s):\n%s", moved[1], out)
		}
		// The step's command, as it ran: exit 10 (drift).
		if out, code := addonpack(t, r.workspace, nil, "lock", "addons.yaml", "--check"); code != 10 {
			t.Errorf("lock --check: exit %d, want 10\n%s", code, out)
		}
	})
	t.Run("schedule, tag moved", func(t *testing.T) {
		r, origin, ghLog := newStackGHRun(t, src, "schedule")
		if failed, out := r.runWorkflow(t, wf); failed != "" {
			t.Fatalf("step %q failed:\n%s", failed, out)
		}
		show := exec.Command("git", "--git-dir", origin, "show", "addonpack/lock-update:"+stack.LockName)
		show.Env = []string{"PATH=" + systemPath(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}
		pushedLock, err := show.CombinedOutput()
		if err != nil || !strings.Contains(string(pushedLock), moved[1]) {
			t.Fatalf("origin's addonpack/lock-update holds no lock with %s (%v):\n%s", moved[1], err, pushedLock)
		}
		gh, err := os.ReadFile(ghLog)
		if err != nil || !strings.HasPrefix(string(gh), "pr create --head addonpack/lock-update ") {
			t.Errorf("gh calls %q (%v)", gh, err)
		}
		if out, code := addonpack(t, r.workspace, nil, "lock", "addons.yaml", "--check"); code != 0 {
			t.Errorf("lock --check after the update: exit %d\n%s", code, out)
		}
	})
}
