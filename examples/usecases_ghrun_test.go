package examples_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The simulated GitHub Actions runner that executes examples/ci's workflow
// for the use-case tests in usecases_ci_test.go.

// ghRun is one simulated workflow run.
type ghRun struct {
	workspace, temp, home string
	github, secrets, vars map[string]string
	goShimLog             string
	summary               string
	dockerConfig          string
	outputs               map[string]map[string]string
	ranSteps              []string
	// publicKey is the release key's public half, checked out as cosign.pub.
	publicKey string
	// logs are the output of each step run, by name.
	logs map[string]string
	// runtimeEnv is what the runner adds for this job, e.g. the
	// ACTIONS_ID_TOKEN_REQUEST_* pair a job with id-token: write sees.
	runtimeEnv map[string]string
}

var ghExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// eval substitutes ${{ … }} the way the runner does, for the contexts the
// workflow uses; anything else fails the test rather than being guessed.
func (r *ghRun) eval(t *testing.T, s string, env map[string]string) string {
	t.Helper()
	return ghExpr.ReplaceAllStringFunc(s, func(m string) string {
		expr := ghExpr.FindStringSubmatch(m)[1]
		parts := strings.Split(expr, ".")
		switch {
		case len(parts) == 2 && parts[0] == "secrets":
			v, ok := r.secrets[parts[1]]
			if !ok {
				t.Fatalf("workflow uses secret %s the test does not provide", parts[1])
			}
			return v
		case len(parts) == 2 && parts[0] == "vars":
			v, ok := r.vars[parts[1]]
			if !ok {
				t.Fatalf("workflow uses variable %s the test does not provide", parts[1])
			}
			return v
		case len(parts) == 2 && parts[0] == "github":
			v, ok := r.github[parts[1]]
			if !ok {
				t.Fatalf("workflow uses github.%s the test does not provide", parts[1])
			}
			return v
		case len(parts) == 2 && parts[0] == "env":
			return env[parts[1]]
		case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
			return r.outputs[parts[1]][parts[3]]
		}
		t.Fatalf("unsupported expression ${{ %s }}", expr)
		return ""
	})
}

// readEnvFile parses a $GITHUB_ENV / $GITHUB_OUTPUT file: NAME=value lines and
// NAME<<DELIM heredocs.
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if k, delim, ok := strings.Cut(l, "<<"); ok && !strings.Contains(k, "=") {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			out[k] = strings.Join(val, "\n")
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Fatalf("%s: malformed line %q", path, l)
		}
		out[k] = v
	}
	return out
}

func mapEnv(m map[string]string) []string {
	var env []string
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// runWorkflow runs the job's steps in order as a GitHub-hosted runner would.
// It returns the name of the step that failed, if any, and its output.
func (r *ghRun) runWorkflow(t *testing.T, wf ghWorkflow) (failed, output string) {
	t.Helper()
	shim := filepath.Join(r.temp, "shim")
	if err := os.MkdirAll(shim, 0o755); err != nil {
		t.Fatal(err)
	}
	// The install step's `go install github.com/addonpack/addonpack/cmd/addonpack@VERSION`
	// installs the binary built from this repository, where go install would put it.
	writeExecutable(t, filepath.Join(shim, "go"), fmt.Sprintf(`#!/bin/sh
if [ "$1" = install ] && [ $# -eq 2 ]; then
  case "$2" in
  github.com/addonpack/addonpack/cmd/addonpack@v*)
    printf '%%s\n' "$2" >> %q
    mkdir -p "$HOME/go/bin" && cp %q "$HOME/go/bin/addonpack"
    exit $? ;;
  esac
fi
echo "go shim: unexpected: go $*" >&2
exit 2
`, r.goShimLog, addonpackBin))

	for _, f := range []string{"env", "path", "output", "summary"} {
		if err := os.WriteFile(filepath.Join(r.temp, "github_"+f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.summary = filepath.Join(r.temp, "github_summary")
	paths := []string{shim}
	runnerEnv := map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "RUNNER_OS": "Linux",
		"HOME": r.home, "RUNNER_TEMP": r.temp, "GITHUB_WORKSPACE": r.workspace,
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": ciRepo,
		"GITHUB_REPOSITORY_OWNER": ciOwner, "GITHUB_ACTOR": ciActor,
		"GITHUB_REF": r.github["ref"], "GITHUB_REF_NAME": r.github["ref_name"], "GITHUB_REF_TYPE": "tag",
		"GITHUB_SHA": r.github["sha"], "GITHUB_WORKFLOW_REF": r.github["workflow_ref"],
		"GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_EVENT_NAME": r.eventName(),
		"GITHUB_ENV": filepath.Join(r.temp, "github_env"), "GITHUB_PATH": filepath.Join(r.temp, "github_path"),
		"GITHUB_STEP_SUMMARY": r.summary,
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull, "LANG": "C.UTF-8",
	}
	maps.Copy(runnerEnv, r.runtimeEnv)
	wfEnv := map[string]string{}
	for k, v := range wf.Env {
		wfEnv[k] = r.eval(t, v, wfEnv)
	}
	exported := map[string]string{}
	r.outputs = map[string]map[string]string{}
	r.logs = map[string]string{}
	for _, job := range wf.Jobs {
		jobEnv := maps.Clone(wfEnv)
		for k, v := range job.Env {
			jobEnv[k] = r.eval(t, v, jobEnv)
		}
		for i, s := range job.Steps {
			name := s.Name
			if name == "" {
				name = s.Uses
			}
			if s.If != "" && !r.cond(t, s.If) {
				continue
			}
			r.ranSteps = append(r.ranSteps, name)
			switch {
			case strings.HasPrefix(s.Uses, "actions/checkout@"):
				// The workspace is the checkout: a git work tree at the tag's commit
				// whose origin is https://github.com/OWNER/REPO (as checkout sets it).
				continue
			case strings.HasPrefix(s.Uses, "actions/setup-go@"):
				// setup-go puts Go and $(go env GOPATH)/bin on PATH.
				paths = append(paths, filepath.Join(r.home, "go", "bin"))
				continue
			case s.Uses != "":
				t.Fatalf("step %d uses %s, which the test cannot emulate", i, s.Uses)
			}
			env := maps.Clone(runnerEnv)
			maps.Copy(env, exported)
			maps.Copy(env, jobEnv)
			for k, v := range s.Env {
				env[k] = r.eval(t, v, env)
			}
			env["GITHUB_OUTPUT"] = filepath.Join(r.temp, "github_output")
			if err := os.WriteFile(env["GITHUB_OUTPUT"], nil, 0o644); err != nil { // a fresh file per step
				t.Fatal(err)
			}
			env["PATH"] = strings.Join(append(slices.Clone(paths), systemPath()), string(os.PathListSeparator))
			script := filepath.Join(r.temp, fmt.Sprintf("step-%d.sh", i))
			if err := os.WriteFile(script, []byte(r.eval(t, s.Run, env)), 0o644); err != nil {
				t.Fatal(err)
			}
			shell := s.Shell
			if shell == "" {
				shell = wf.Defaults.Run.Shell
			}
			if shell != "bash" {
				t.Fatalf("step %q: shell %q (the workflow must run bash)", name, shell)
			}
			// shell: bash is `bash --noprofile --norc -eo pipefail {0}` on GitHub's runners.
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Dir, cmd.Env = r.workspace, mapEnv(env)
			out, err := cmd.CombinedOutput()
			t.Logf("step %q:\n%s", name, out)
			r.logs[name] = string(out)
			if err != nil {
				return name, string(out)
			}
			if s.ID != "" {
				r.outputs[s.ID] = readEnvFile(t, env["GITHUB_OUTPUT"])
			}
			maps.Copy(exported, readEnvFile(t, runnerEnv["GITHUB_ENV"]))
			pb, _ := os.ReadFile(runnerEnv["GITHUB_PATH"])
			for _, p := range strings.Fields(string(pb)) {
				if !slices.Contains(paths, p) {
					paths = append([]string{p}, paths...)
				}
			}
		}
	}
	r.dockerConfig = exported["DOCKER_CONFIG"]
	return "", ""
}

// eventName is github.event_name: "push" unless the test sets another.
func (r *ghRun) eventName() string {
	if e, ok := r.github["event_name"]; ok {
		return e
	}
	return "push"
}

var ghEventCond = regexp.MustCompile(`^github\.event_name\s*(==|!=)\s*'([a-z_]+)'$`)

// cond evaluates a step's if: — only `github.event_name == 'NAME'` or `!=`;
// anything else fails the test rather than being guessed.
func (r *ghRun) cond(t *testing.T, expr string) bool {
	t.Helper()
	m := ghEventCond.FindStringSubmatch(strings.TrimSpace(expr))
	if m == nil {
		t.Fatalf("unsupported if: %s", expr)
	}
	return (r.eventName() == m[2]) == (m[1] == "==")
}
