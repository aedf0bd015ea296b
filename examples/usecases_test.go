// The use cases (README "Use cases"), run for real against an in-process
// registry with the addonpack binary built from this repository:
//
//   - examples/ci: the publisher's GitHub Actions release workflow; every run:
//     step is executed in order with bash and the env it declares;
//   - examples/policies: the enterprise consumer's two-of-three policy; the
//     README's commands are executed as written, with their documented exit codes;
//   - examples/install-job: the in-cluster install Job; the manifests are built
//     with kustomize and checked, and the Job's script is run with a fake kubectl;
//     the README's Flux commands are executed;
//   - Dockerfile and .dockerignore: checked structurally (no Docker engine here).
package examples_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/testregistry"
)

// addonpackBin is the CLI built from this repository once per test binary.
var addonpackBin string

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "addonpack-usecases-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		addonpackBin = filepath.Join(dir, "addonpack")
		build := exec.Command("go", "build", "-o", addonpackBin, "./cmd/addonpack")
		build.Dir = ".."
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building addonpack:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// (a) the publisher's release pipeline

type ghWorkflow struct {
	Name string `yaml:"name"`
	On   map[string]struct {
		Tags []string `yaml:"tags"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Env      map[string]string `yaml:"env"`
	Defaults struct {
		Run struct {
			Shell string `yaml:"shell"`
		} `yaml:"run"`
	} `yaml:"defaults"`
	Jobs map[string]ghJob `yaml:"jobs"`
}

type ghJob struct {
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Env            map[string]string `yaml:"env"`
	Steps          []ghStep          `yaml:"steps"`
}

type ghStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	If    string            `yaml:"if"`
	With  map[string]string `yaml:"with"`
	Env   map[string]string `yaml:"env"`
}

const (
	ciWorkflow   = "ci/github-actions.yaml"
	ciOwner      = "acme"
	ciRepo       = "acme/hello-addon"
	ciActor      = "octocat"
	ciToken      = "ghs_registry-token-for-the-test"
	reportType   = "https://addonpack.dev/attestations/render-report/v1"
	ciWorkflowID = "acme/hello-addon/.github/workflows/release.yaml"
)

func loadWorkflow(t *testing.T) (ghWorkflow, string) {
	t.Helper()
	raw, err := os.ReadFile(ciWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	dec := yamlv3.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&wf); err != nil {
		t.Fatalf("%s: %v", ciWorkflow, err)
	}
	return wf, string(raw)
}

// TestUseCaseCIWorkflowShape checks what the run cannot: the trigger, the
// pinned actions, the permissions and where the secrets go.
func TestUseCaseCIWorkflowShape(t *testing.T) {
	wf, raw := loadWorkflow(t)
	if tags := wf.On["push"].Tags; !slices.Equal(tags, []string{"v*"}) || len(wf.On) != 1 {
		t.Errorf("trigger: want only push of tags [v*], got %+v", wf.On)
	}
	if wf.Permissions["contents"] != "read" || wf.Permissions["packages"] != "write" || len(wf.Permissions) != 2 {
		t.Errorf("permissions: want contents: read, packages: write; got %v", wf.Permissions)
	}
	if wf.Defaults.Run.Shell != "bash" {
		t.Errorf("defaults.run.shell = %q, want bash", wf.Defaults.Run.Shell)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("want one job, got %d", len(wf.Jobs))
	}
	pinned := regexp.MustCompile(`^actions/(checkout|setup-go)@[0-9a-f]{40}$`)
	var uses []string
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.Uses != "" {
				if !pinned.MatchString(s.Uses) {
					t.Errorf("action %q is not one of actions/checkout, actions/setup-go pinned to a commit", s.Uses)
				}
				if !regexp.MustCompile(regexp.QuoteMeta(s.Uses) + ` # v\d+\.\d+\.\d+`).MatchString(raw) {
					t.Errorf("action %q: no '# vX.Y.Z' comment naming the pinned release", s.Uses)
				}
				uses = append(uses, strings.SplitN(s.Uses, "@", 2)[0])
			}
			if s.Uses == "" && s.Run == "" {
				t.Errorf("step %q has neither uses nor run", s.Name)
			}
			if s.If != "" {
				t.Errorf("step %q: if: is not supported by the test runner", s.Name)
			}
			for k, v := range s.Env {
				if strings.Contains(v, "secrets.ADDON_SIGNING_KEY") && !strings.Contains(s.Run, "env://"+k) {
					t.Errorf("step %q gets the signing key but does not use it", s.Name)
				}
			}
			if strings.Contains(s.Run, "addonpack push") {
				if !strings.Contains(s.Run, "--key env://ADDON_SIGNING_KEY") || strings.Contains(s.Run, "--builder-id") {
					t.Errorf("push must sign with --key env://ADDON_SIGNING_KEY and derive the builder id itself:\n%s", s.Run)
				}
				if s.Env["ADDON_SIGNING_KEY"] != "${{ secrets.ADDON_SIGNING_KEY }}" || s.Env["COSIGN_PASSWORD"] != "${{ secrets.COSIGN_PASSWORD }}" {
					t.Errorf("push step env: key and password must come from secrets, got %v", s.Env)
				}
			}
			if strings.Contains(s.Run, "go install") && !strings.Contains(s.Run, "go install \"github.com/addonpack/addonpack/cmd/addonpack@${ADDONPACK_VERSION}\"") {
				t.Errorf("install step: %q", s.Run)
			}
		}
		if job.Steps[0].Uses == "" || !strings.HasPrefix(job.Steps[0].Uses, "actions/checkout@") || job.Steps[0].With["fetch-depth"] != "0" {
			t.Errorf("first step must be actions/checkout with fetch-depth: 0 (reproducible created/revision)")
		}
	}
	if !slices.Equal(uses, []string{"actions/checkout", "actions/setup-go"}) {
		t.Errorf("actions used: %v", uses)
	}
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(wf.Env["ADDONPACK_VERSION"]) {
		t.Errorf("ADDONPACK_VERSION %q is not a pinned release", wf.Env["ADDONPACK_VERSION"])
	}
	if wf.Env["REPORT_TYPE"] != reportType {
		t.Errorf("REPORT_TYPE = %q", wf.Env["REPORT_TYPE"])
	}
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.Uses != "" && strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version"] != "1.26.x" {
				t.Errorf("setup-go go-version = %q, want 1.26.x", s.With["go-version"])
			}
		}
	}
}

// ghRun is one simulated workflow run.
type ghRun struct {
	workspace, temp, home string
	github, secrets, vars map[string]string
	goShimLog             string
	summary               string
	dockerConfig          string
	outputs               map[string]map[string]string
	ranSteps              []string
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
		"GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_EVENT_NAME": "push",
		"GITHUB_ENV": filepath.Join(r.temp, "github_env"), "GITHUB_PATH": filepath.Join(r.temp, "github_path"),
		"GITHUB_STEP_SUMMARY": r.summary,
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.DevNull, "LANG": "C.UTF-8",
	}
	wfEnv := map[string]string{}
	for k, v := range wf.Env {
		wfEnv[k] = r.eval(t, v, wfEnv)
	}
	exported := map[string]string{}
	r.outputs = map[string]map[string]string{}
	for _, job := range wf.Jobs {
		jobEnv := maps2(wfEnv)
		for k, v := range job.Env {
			jobEnv[k] = r.eval(t, v, jobEnv)
		}
		for i, s := range job.Steps {
			name := s.Name
			if name == "" {
				name = s.Uses
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
			env := maps2(runnerEnv)
			for k, v := range exported {
				env[k] = v
			}
			for k, v := range jobEnv {
				env[k] = v
			}
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
			if err != nil {
				return name, string(out)
			}
			if s.ID != "" {
				r.outputs[s.ID] = readEnvFile(t, env["GITHUB_OUTPUT"])
			}
			for k, v := range readEnvFile(t, runnerEnv["GITHUB_ENV"]) {
				exported[k] = v
			}
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

func maps2(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// newGHRun prepares the publisher's repository as actions/checkout leaves it:
// the add-on in addon/, the public key in cosign.pub, origin on GitHub.
func newGHRun(t *testing.T, registryHost, tag string) *ghRun {
	t.Helper()
	root := t.TempDir()
	r := &ghRun{
		workspace: filepath.Join(root, "work", "hello-addon"),
		temp:      filepath.Join(root, "runner-temp"),
		home:      filepath.Join(root, "home"),
		goShimLog: filepath.Join(root, "go-install.log"),
	}
	for _, d := range []string{r.workspace, r.temp, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyDir(t, "hello", filepath.Join(r.workspace, "addon"))
	keyDir := t.TempDir()
	keygen(t, keyDir, "release")
	copyFile(t, filepath.Join(keyDir, "release.pub"), filepath.Join(r.workspace, "cosign.pub"))
	sha := gitCommit(t, r.workspace, "https://github.com/"+ciRepo)
	privateKey, err := os.ReadFile(filepath.Join(keyDir, "release.key"))
	if err != nil {
		t.Fatal(err)
	}
	r.github = map[string]string{
		"ref": "refs/tags/" + tag, "ref_name": tag, "repository": ciRepo, "repository_owner": ciOwner,
		"actor": ciActor, "sha": sha, "server_url": "https://github.com",
		"workflow_ref": ciWorkflowID + "@refs/tags/" + tag,
	}
	r.secrets = map[string]string{
		"ADDON_SIGNING_KEY": string(privateKey), "COSIGN_PASSWORD": testPassword, "GITHUB_TOKEN": ciToken,
	}
	r.vars = map[string]string{"ADDON_REGISTRY": registryHost + "/" + ciOwner}
	return r
}

// TestUseCaseCIWorkflow runs the release workflow's steps on a tag push and
// verifies the result as a consumer: signature by the release key, SLSA
// provenance whose builder is the workflow at the tag and whose source is the
// repository, and the render-report attestation.
func TestUseCaseCIWorkflow(t *testing.T) {
	wf, _ := loadWorkflow(t)
	reg := testregistry.New(t, testregistry.WithBasicAuth(ciActor, ciToken))
	r := newGHRun(t, reg.Host(), "v0.1.0")
	if failed, out := r.runWorkflow(t, wf); failed != "" {
		t.Fatalf("step %q failed:\n%s", failed, out)
	}
	if log, _ := os.ReadFile(r.goShimLog); string(log) != "github.com/addonpack/addonpack/cmd/addonpack@"+wf.Env["ADDONPACK_VERSION"]+"\n" {
		t.Errorf("go install calls: %q", log)
	}
	ref := r.outputs["push"]["ref"]
	wantRepo := reg.Host() + "/acme/addons/hello@sha256:"
	if !strings.HasPrefix(ref, wantRepo) || r.outputs["build"]["digest"] != strings.TrimPrefix(ref, reg.Host()+"/acme/addons/hello@") {
		t.Fatalf("pushed %q (built %q), want %s…", ref, r.outputs["build"]["digest"], wantRepo)
	}
	if r.dockerConfig == "" {
		t.Fatal("the login step exported no DOCKER_CONFIG")
	}
	summary, _ := os.ReadFile(r.summary)
	if !strings.Contains(string(summary), "Released "+ref) {
		t.Errorf("step summary: %q", summary)
	}

	pub := filepath.Join(r.workspace, "cosign.pub")
	env := []string{"HOME=" + t.TempDir(), "PATH=" + systemPath(), "DOCKER_CONFIG=" + r.dockerConfig}
	builder := "https://github.com/" + ciWorkflowID + "@refs/tags/v0.1.0"
	out, code := addonpack(t, "", env, "verify", reg.Host()+"/acme/addons/hello:0.1.0", "--key", pub,
		"--builder-id", builder, "--source-repo", "https://github.com/"+ciRepo,
		"--require-attestation", reportType, "-o", "json")
	if code != 0 {
		t.Fatalf("verify with the workflow's builder id: exit %d\n%s", code, out)
	}
	var res struct {
		Verified     bool     `json:"verified"`
		SignedBy     []string `json:"signedBy"`
		Attestations []struct {
			PredicateType string `json:"predicateType"`
			Verdict       string `json:"verdict"`
		} `json:"attestations"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("verify -o json: %v\n%s", err, out)
	}
	valid := map[string]bool{}
	for _, a := range res.Attestations {
		if a.Verdict == "valid" {
			valid[a.PredicateType] = true
		}
	}
	if !res.Verified || len(res.SignedBy) != 1 || !valid["https://slsa.dev/provenance/v1"] || !valid[reportType] {
		t.Errorf("verify result: %s", out)
	}
	// Another builder (a branch build of the same workflow) is refused.
	if out, code := addonpack(t, "", env, "verify", ref, "--key", pub,
		"--builder-id", "https://github.com/"+ciWorkflowID+"@refs/heads/main"); code != 9 {
		t.Errorf("verify with another builder id: exit %d, want 9\n%s", code, out)
	}
	// The login step's credentials are what let anyone in: anonymous is refused.
	if out, code := addonpack(t, "", []string{"HOME=" + t.TempDir(), "PATH=" + systemPath()}, "verify", ref, "--key", pub); code != 6 {
		t.Errorf("anonymous verify: exit %d, want 6\n%s", code, out)
	}
}

// TestUseCaseCIWorkflowWrongTag: a tag that does not match addon.yaml's
// version stops the workflow before anything is pushed.
func TestUseCaseCIWorkflowWrongTag(t *testing.T) {
	wf, _ := loadWorkflow(t)
	reg := testregistry.New(t, testregistry.WithBasicAuth(ciActor, ciToken))
	r := newGHRun(t, reg.Host(), "v9.9.9")
	failed, out := r.runWorkflow(t, wf)
	if failed != "Build, and check the tag against addon.yaml" || !strings.Contains(out, "does not match version 0.1.0") {
		t.Fatalf("want the build step to fail on the tag, got step %q:\n%s", failed, out)
	}
	for _, req := range reg.Log() {
		if req.Method != "GET" && req.Method != "HEAD" {
			t.Errorf("registry saw %s %s: something was pushed", req.Method, req.Path)
		}
	}
}

// ---------------------------------------------------------------------------
// (b) the enterprise consumer's policy

func TestUseCasePolicy(t *testing.T) {
	raw, err := os.ReadFile("policies/two-of-three.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The committed policy: valid per the schema, the shape the README describes.
	validatePolicySchema(t, raw)
	var pol struct {
		Keys []struct {
			Name, Path, PublicKey, Ref string
		} `json:"keys"`
		Scopes []struct {
			Prefix     string   `json:"prefix"`
			Keys       []string `json:"keys"`
			Threshold  int      `json:"threshold"`
			Provenance struct {
				Required           bool     `json:"required"`
				SourceRepositories []string `json:"sourceRepositories"`
				BuilderIDs         []string `json:"builderIds"`
			} `json:"provenance"`
		} `json:"scopes"`
	}
	if err := sigsyaml.Unmarshal(raw, &pol); err != nil {
		t.Fatal(err)
	}
	if len(pol.Keys) != 3 || len(pol.Scopes) != 1 {
		t.Fatalf("want three keys and one scope: %+v", pol)
	}
	s := pol.Scopes[0]
	if s.Prefix != "registry.example.com/addons" || len(s.Keys) != 3 || s.Threshold != 2 || !s.Provenance.Required ||
		!slices.Equal(s.Provenance.SourceRepositories, []string{"https://github.com/example/addons"}) {
		t.Errorf("scope: %+v", s)
	}
	for _, k := range pol.Keys {
		if !strings.HasPrefix(k.Path, "keys/") || !strings.HasSuffix(k.Path, ".pub") {
			t.Errorf("key %s: want a public key file under keys/, got %q", k.Name, k.Path)
		}
	}
	noPrivateKeys(t, "policies")

	// The README's walkthrough, as written.
	reg := testregistry.New(t)
	dir := t.TempDir()
	copyFile(t, "policies/two-of-three.yaml", filepath.Join(dir, "two-of-three.yaml"))
	env := []string{"REGISTRY=" + reg.Host()}
	results := runDocCommands(t, "policies/README.md", dir, env)

	// Each refusal fails for the documented reason.
	reasons := []string{
		"signature threshold not met: 1 of the required 2",
		"signature threshold not met: 1 of the required 2",
		`source ["git+https://github.com/mallory/addons"] is not one of ["https://github.com/example/addons"]`,
		"no policy applies",
	}
	var refused []docResult
	for _, r := range results {
		if r.want != 0 {
			refused = append(refused, r)
		}
	}
	if len(refused) != len(reasons) {
		t.Fatalf("README documents %d refusals, the test expects %d", len(refused), len(reasons))
	}
	for i, r := range refused {
		if r.want != 9 || !strings.Contains(r.stderr, reasons[i]) {
			t.Errorf("README line %d (exit %d): stderr does not say %q:\n%s", r.line, r.want, reasons[i], r.stderr)
		}
	}
	// The render that passed produced the add-on with the consumer's change.
	rendered, err := os.ReadFile(filepath.Join(dir, "hello.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs := parseObjects(t, rendered)
	if kinds := kindsOf(objs); !slices.Equal(kinds, []string{"Deployment", "Namespace", "Service", "ServiceAccount"}) {
		t.Errorf("rendered kinds %v", kinds)
	}
	// And the verdict in data form names the two signers and the provenance.
	out, code := addonpack(t, dir, []string{"HOME=" + filepath.Join(dir, "home")}, "verify", reg.Host()+"/addons/hello:0.1.0", "--policy", "policy.yaml", "-o", "json")
	if code != 0 || !strings.Contains(out, `"threshold": 2`) || strings.Count(out, `"sha256:`) < 2 {
		t.Errorf("verify -o json: exit %d\n%s", code, out)
	}
}

func validatePolicySchema(t *testing.T, raw []byte) {
	t.Helper()
	var doc any
	if err := sigsyaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// Round-trip through JSON so numbers are what the validator expects.
	j, _ := json.Marshal(doc)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("../specs/schemas/policy.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("two-of-three.yaml does not match specs/schemas/policy.schema.json: %v", err)
	}
}

// noPrivateKeys fails if a private key is committed under dir.
func noPrivateKeys(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".key") || bytes.Contains(b, []byte("PRIVATE KEY-----")) {
			t.Errorf("%s: private key material in the examples", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ---------------------------------------------------------------------------
// (c) the install Job and the Flux way

type k8sObject struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   k8sMeta           `json:"metadata"`
	Data       map[string]string `json:"data"`
	Rules      []rbacRule        `json:"rules"`
	RoleRef    struct {
		Kind, Name string
	} `json:"roleRef"`
	Subjects []struct {
		Kind, Name, Namespace string
	} `json:"subjects"`
	Spec json.RawMessage `json:"spec"`
}

type k8sMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type rbacRule struct {
	APIGroups     []string `json:"apiGroups"`
	Resources     []string `json:"resources"`
	ResourceNames []string `json:"resourceNames"`
	Verbs         []string `json:"verbs"`
}

type k8sContainer struct {
	Name    string   `json:"name"`
	Image   string   `json:"image"`
	Command []string `json:"command"`
	Args    []string `json:"args"`
	Env     []struct {
		Name, Value string
	} `json:"env"`
	SecurityContext struct {
		ReadOnlyRootFilesystem   *bool `json:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation"`
		Capabilities             struct {
			Drop []string `json:"drop"`
		} `json:"capabilities"`
	} `json:"securityContext"`
	VolumeMounts []struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
		ReadOnly  bool   `json:"readOnly"`
	} `json:"volumeMounts"`
}

type jobSpec struct {
	BackoffLimit          *int `json:"backoffLimit"`
	ActiveDeadlineSeconds *int `json:"activeDeadlineSeconds"`
	Template              struct {
		Spec struct {
			ServiceAccountName           string `json:"serviceAccountName"`
			AutomountServiceAccountToken *bool  `json:"automountServiceAccountToken"`
			RestartPolicy                string `json:"restartPolicy"`
			SecurityContext              struct {
				RunAsNonRoot *bool `json:"runAsNonRoot"`
				RunAsUser    *int  `json:"runAsUser"`
			} `json:"securityContext"`
			Containers []k8sContainer `json:"containers"`
			Volumes    []struct {
				Name      string                 `json:"name"`
				ConfigMap *struct{ Name string } `json:"configMap"`
				EmptyDir  *json.RawMessage       `json:"emptyDir"`
			} `json:"volumes"`
		} `json:"spec"`
	} `json:"template"`
}

// installJob builds examples/install-job with kustomize, parses every file
// with kyaml, and returns the objects.
func installJob(t *testing.T) []k8sObject {
	t.Helper()
	files, err := filepath.Glob("install-job/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var fromFiles int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := kio.FromBytes(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, n := range nodes {
			if n.GetKind() != "Kustomization" {
				fromFiles++
			}
		}
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "install-job")
	if err != nil {
		t.Fatalf("kustomize build install-job: %v", err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	objs := parseObjects(t, out)
	if len(objs) != fromFiles {
		t.Errorf("kustomization lists %d objects, the files hold %d", len(objs), fromFiles)
	}
	return objs
}

func parseObjects(t *testing.T, b []byte) []k8sObject {
	t.Helper()
	nodes, err := kio.FromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	var objs []k8sObject
	for _, n := range nodes {
		s, err := n.String()
		if err != nil {
			t.Fatal(err)
		}
		var o k8sObject
		if err := sigsyaml.Unmarshal([]byte(s), &o); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	return objs
}

func kindsOf(objs []k8sObject) []string {
	var kinds []string
	for _, o := range objs {
		if !slices.Contains(kinds, o.Kind) {
			kinds = append(kinds, o.Kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

func find(objs []k8sObject, kind string) []k8sObject {
	var out []k8sObject
	for _, o := range objs {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

const jobScriptReadme = "<!-- usecases-test: job-script"

// TestUseCaseInstallJobManifests is the structural check of the Job and its
// RBAC, config and namespaces.
func TestUseCaseInstallJobManifests(t *testing.T) {
	objs := installJob(t)
	want := []string{"ClusterRole", "ClusterRoleBinding", "ConfigMap", "Job", "Namespace", "Role", "RoleBinding", "ServiceAccount"}
	if kinds := kindsOf(objs); !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	jobs := find(objs, "Job")
	if len(jobs) != 1 {
		t.Fatalf("want one Job, got %d", len(jobs))
	}
	job, c := parseJob(t, jobs[0])
	ps := job.Template.Spec
	if ps.RestartPolicy != "Never" || job.BackoffLimit == nil || *job.BackoffLimit < 1 ||
		job.ActiveDeadlineSeconds == nil || *job.ActiveDeadlineSeconds < 60 {
		t.Errorf("Job: restartPolicy %q, backoffLimit %v, activeDeadlineSeconds %v", ps.RestartPolicy, job.BackoffLimit, job.ActiveDeadlineSeconds)
	}
	if ps.SecurityContext.RunAsNonRoot == nil || !*ps.SecurityContext.RunAsNonRoot || ps.SecurityContext.RunAsUser == nil || *ps.SecurityContext.RunAsUser == 0 {
		t.Errorf("pod securityContext must run as a non-root uid: %+v", ps.SecurityContext)
	}
	sc := c.SecurityContext
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		!slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
		t.Errorf("container securityContext: %+v", sc)
	}
	sas := find(objs, "ServiceAccount")
	if len(sas) != 1 || ps.ServiceAccountName != sas[0].Metadata.Name || sas[0].Metadata.Namespace != jobs[0].Metadata.Namespace {
		t.Errorf("Job runs as %q; ServiceAccounts %+v", ps.ServiceAccountName, sas)
	}
	if ps.AutomountServiceAccountToken == nil || !*ps.AutomountServiceAccountToken {
		t.Error("the Job's pod must mount the ServiceAccount token: kubectl uses it")
	}

	// Mounts: the ConfigMap read-only at /etc/addonpack with both keys; emptyDirs for the rest.
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	vols := map[string]int{}
	for i, v := range ps.Volumes {
		vols[v.Name] = i
	}
	cfgVol := ps.Volumes[vols[mounts["/etc/addonpack"]]]
	if cfgVol.ConfigMap == nil {
		t.Fatalf("/etc/addonpack is not a ConfigMap volume")
	}
	var cm *k8sObject
	for _, o := range find(objs, "ConfigMap") {
		if o.Metadata.Name == cfgVol.ConfigMap.Name && o.Metadata.Namespace == jobs[0].Metadata.Namespace {
			cm = &o
		}
	}
	if cm == nil || cm.Data["values.yaml"] == "" || !strings.Contains(cm.Data["cosign.pub"], "BEGIN PUBLIC KEY") {
		t.Fatalf("ConfigMap %q with values.yaml and cosign.pub not found", cfgVol.ConfigMap.Name)
	}
	for _, p := range []string{"/work", "/tmp"} {
		if v := ps.Volumes[vols[mounts[p]]]; v.EmptyDir == nil {
			t.Errorf("%s must be an emptyDir (read-only root filesystem)", p)
		}
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if !underMount(env["HOME"], mounts) || !underMount(env["TMPDIR"], mounts) || env["ADDON_REF"] == "" {
		t.Errorf("HOME %q and TMPDIR %q must be on a mounted volume; ADDON_REF %q", env["HOME"], env["TMPDIR"], env["ADDON_REF"])
	}

	// The script: render with the mounted key and values into /work, then apply server-side.
	if !slices.Equal(c.Command, []string{"/bin/sh", "-euc"}) || len(c.Args) != 1 {
		t.Fatalf("command %q args %q: want /bin/sh -euc SCRIPT", c.Command, c.Args)
	}
	script := c.Args[0]
	for _, want := range []string{
		`addonpack render "$ADDON_REF" --key /etc/addonpack/cosign.pub --values /etc/addonpack/values.yaml > /work/out.yaml`,
		`&& kubectl apply --server-side --field-manager=addonpack -f /work/out.yaml`,
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	for _, p := range regexp.MustCompile(`(?:^|\s)(/[^\s"']+)`).FindAllStringSubmatch(script, -1) {
		if !underMount(p[1], mounts) {
			t.Errorf("script path %s is not on a mounted volume", p[1])
		}
	}
	// The README shows the same script.
	md, err := os.ReadFile("install-job/README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlocks(t, string(md))
	var shown []string
	for _, b := range blocks {
		if b.lang == "sh" && strings.HasPrefix(b.marker, jobScriptReadme) {
			shown = append(shown, strings.TrimSpace(b.text))
		}
	}
	if len(shown) != 1 || shown[0] != strings.TrimSpace(script) {
		t.Errorf("install-job/README.md shows %q, job.yaml runs %q", shown, script)
	}

	// RBAC: nothing broad; bound to the Job's ServiceAccount only.
	for _, kind := range []string{"Role", "ClusterRole"} {
		for _, o := range find(objs, kind) {
			for _, r := range o.Rules {
				for _, list := range [][]string{r.APIGroups, r.Resources, r.Verbs} {
					if slices.Contains(list, "*") {
						t.Errorf("%s %s: wildcard in %+v", kind, o.Metadata.Name, r)
					}
				}
				for _, v := range r.Verbs {
					if !slices.Contains([]string{"get", "create", "patch"}, v) {
						t.Errorf("%s %s: verb %q beyond what server-side apply needs", kind, o.Metadata.Name, v)
					}
				}
				for _, res := range r.Resources {
					if slices.Contains([]string{"secrets", "roles", "clusterroles", "rolebindings", "clusterrolebindings"}, res) {
						t.Errorf("%s %s: grants %s", kind, o.Metadata.Name, res)
					}
				}
			}
		}
	}
	for _, kind := range []string{"RoleBinding", "ClusterRoleBinding"} {
		for _, o := range find(objs, kind) {
			if len(o.Subjects) != 1 || o.Subjects[0].Kind != "ServiceAccount" || o.Subjects[0].Name != ps.ServiceAccountName ||
				o.Subjects[0].Namespace != jobs[0].Metadata.Namespace {
				t.Errorf("%s %s binds %+v", kind, o.Metadata.Name, o.Subjects)
			}
		}
	}
}

func parseJob(t *testing.T, o k8sObject) (jobSpec, k8sContainer) {
	t.Helper()
	var job jobSpec
	if err := json.Unmarshal(o.Spec, &job); err != nil {
		t.Fatal(err)
	}
	if len(job.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(job.Template.Spec.Containers))
	}
	return job, job.Template.Spec.Containers[0]
}

func underMount(p string, mounts map[string]string) bool {
	for m := range mounts {
		if p == m || strings.HasPrefix(p, m+"/") {
			return true
		}
	}
	return false
}

// jobRun lays out the Job's volumes locally as the kubelet would (ConfigMap
// keys as files, emptyDirs empty) and runs the container's command with its
// env, a fake kubectl first on PATH and the mount paths mapped to the local
// directories — the only change to the script.
type jobRun struct {
	root, kubectlLog string
	code             int
	output           string
}

func runInstallJob(t *testing.T, objs []k8sObject, addonRef string, pubKey []byte) jobRun {
	t.Helper()
	jobs := find(objs, "Job")
	job, c := parseJob(t, jobs[0])
	r := jobRun{root: t.TempDir(), kubectlLog: t.TempDir()}
	vols := map[string]int{}
	for i, v := range job.Template.Spec.Volumes {
		vols[v.Name] = i
	}
	var mountPaths []string
	local := func(p string) string { return filepath.Join(r.root, filepath.FromSlash(p)) }
	for _, m := range c.VolumeMounts {
		dir := local(m.MountPath)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		mountPaths = append(mountPaths, m.MountPath)
		v := job.Template.Spec.Volumes[vols[m.Name]]
		if v.ConfigMap == nil {
			continue
		}
		for _, cm := range find(objs, "ConfigMap") {
			if cm.Metadata.Name != v.ConfigMap.Name {
				continue
			}
			for k, val := range cm.Data {
				if k == "cosign.pub" {
					val = string(pubKey) // the user's edit: the publisher's key
				}
				if err := os.WriteFile(filepath.Join(dir, k), []byte(val), 0o444); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// One pass, longest mount first, so a mapped path is never mapped again.
	sort.Slice(mountPaths, func(i, j int) bool { return len(mountPaths[i]) > len(mountPaths[j]) })
	quoted := make([]string, len(mountPaths))
	for i, m := range mountPaths {
		quoted[i] = regexp.QuoteMeta(m)
	}
	mountRE := regexp.MustCompile(`(^|[\s="'])(` + strings.Join(quoted, "|") + `)(/|\s|$|"|')`)
	mapPaths := func(s string) string {
		return mountRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := mountRE.FindStringSubmatch(m)
			return sub[1] + local(sub[2]) + sub[3]
		})
	}
	fake := filepath.Join(r.root, "fake-bin")
	if err := os.MkdirAll(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	writeExecutable(t, filepath.Join(fake, "kubectl"), fmt.Sprintf(`#!/bin/sh
log=%q
printf '%%s\n' "$@" > "$log/args"
cat > "$log/stdin"
prev=
for a in "$@"; do
  if [ "$prev" = -f ]; then cp "$a" "$log/applied.yaml"; fi
  prev=$a
done
echo "fake kubectl: applied"
`, r.kubectlLog))
	binDir := filepath.Dir(addonpackBin)
	env := []string{"PATH=" + fake + string(os.PathListSeparator) + binDir + string(os.PathListSeparator) + systemPath()}
	for _, e := range c.Env {
		v := e.Value
		if e.Name == "ADDON_REF" {
			v = addonRef // the user's edit: the add-on to install
		}
		env = append(env, e.Name+"="+mapPaths(v))
	}
	args := append(slices.Clone(c.Command[1:]), mapPaths(c.Args[0]))
	cmd := exec.Command(c.Command[0], args...)
	cmd.Env, cmd.Dir = env, r.root
	out, err := cmd.CombinedOutput()
	r.output, r.code = string(out), exitCode(t, err)
	return r
}

// TestUseCaseInstallJob runs the Job's script end to end against a registry
// holding the signed add-on.
func TestUseCaseInstallJob(t *testing.T) {
	objs := installJob(t)
	reg := testregistry.New(t)
	keys := t.TempDir()
	keygen(t, keys, "publisher")
	keygen(t, keys, "stranger")
	ref := reg.Host() + "/addons/hello:0.1.0"
	pushed, code := addonpack(t, "", []string{"HOME=" + t.TempDir(), "COSIGN_PASSWORD=" + testPassword},
		"push", "hello", ref, "--key", filepath.Join(keys, "publisher.key"))
	if code != 0 {
		t.Fatalf("push: exit %d\n%s", code, pushed)
	}
	pub, err := os.ReadFile(filepath.Join(keys, "publisher.pub"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("signed", func(t *testing.T) {
		r := runInstallJob(t, objs, ref, pub)
		if r.code != 0 {
			t.Fatalf("the Job's script: exit %d\n%s", r.code, r.output)
		}
		args, err := os.ReadFile(filepath.Join(r.kubectlLog, "args"))
		if err != nil {
			t.Fatal(err)
		}
		outFile := filepath.Join(r.root, "work", "out.yaml")
		if got, want := strings.Split(strings.TrimSpace(string(args)), "\n"),
			[]string{"apply", "--server-side", "--field-manager=addonpack", "-f", outFile}; !slices.Equal(got, want) {
			t.Errorf("kubectl %q, want %q", got, want)
		}
		applied, err := os.ReadFile(filepath.Join(r.kubectlLog, "applied.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		got := parseObjects(t, applied)
		if kinds := kindsOf(got); !slices.Equal(kinds, []string{"Deployment", "Namespace", "Service", "ServiceAccount"}) {
			t.Fatalf("applied kinds %v", kinds)
		}
		var dep struct {
			Replicas int `json:"replicas"`
			Template struct {
				Spec struct {
					Containers []struct {
						Env []struct{ Name, Value string } `json:"env"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		}
		if err := json.Unmarshal(find(got, "Deployment")[0].Spec, &dep); err != nil {
			t.Fatal(err)
		}
		if dep.Replicas != 3 || len(dep.Template.Spec.Containers) != 1 ||
			!slices.Contains(dep.Template.Spec.Containers[0].Env, struct{ Name, Value string }{"ECHO_TEXT", "installed by the addonpack Job"}) {
			t.Errorf("the ConfigMap's values did not reach the Deployment: %+v", dep)
		}
		// HOME on the emptyDir held addonpack's cache (the root filesystem is read-only in the pod).
		if _, err := os.Stat(filepath.Join(r.root, "work", ".cache", "addonpack")); err != nil {
			t.Errorf("no cache under HOME=/work: %v", err)
		}
		checkRBACCovers(t, objs, got)
	})

	t.Run("untrusted key", func(t *testing.T) {
		stranger, err := os.ReadFile(filepath.Join(keys, "stranger.pub"))
		if err != nil {
			t.Fatal(err)
		}
		r := runInstallJob(t, objs, ref, stranger)
		if r.code != 9 {
			t.Fatalf("exit %d, want 9 (verification failed)\n%s", r.code, r.output)
		}
		if _, err := os.Stat(filepath.Join(r.kubectlLog, "args")); !errors.Is(err, fs.ErrNotExist) {
			t.Error("kubectl ran although verification failed")
		}
	})

	t.Run("README and Flux", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "cosign.pub"), pub, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cm := range find(objs, "ConfigMap") {
			if err := os.WriteFile(filepath.Join(dir, "values.yaml"), []byte(cm.Data["values.yaml"]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		results := runDocCommands(t, "install-job/README.md", dir, []string{"REGISTRY=" + reg.Host()})
		if len(results) < 3 {
			t.Fatalf("ran %d README commands", len(results))
		}
		if !strings.Contains(results[0].stdout, "kind: Deployment") {
			t.Errorf("kinds listing: %q", results[0].stdout)
		}
		flux, err := os.ReadFile(filepath.Join(dir, "hello-flux.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		fobjs := parseObjects(t, flux)
		if kinds := kindsOf(fobjs); !slices.Equal(kinds, []string{"Kustomization", "OCIRepository", "Secret"}) {
			t.Fatalf("flux objects %v", kinds)
		}
		digest := regexp.MustCompile(`@(sha256:[0-9a-f]{64})`).FindStringSubmatch(pushed)[1]
		var repo struct {
			URL string `json:"url"`
			Ref struct {
				Digest string `json:"digest"`
			} `json:"ref"`
			Verify struct {
				Provider  string                `json:"provider"`
				SecretRef struct{ Name string } `json:"secretRef"`
			} `json:"verify"`
		}
		if err := json.Unmarshal(find(fobjs, "OCIRepository")[0].Spec, &repo); err != nil {
			t.Fatal(err)
		}
		if repo.URL != "oci://"+reg.Host()+"/addons/hello" || repo.Ref.Digest != digest || repo.Verify.Provider != "cosign" ||
			repo.Verify.SecretRef.Name != find(fobjs, "Secret")[0].Metadata.Name {
			t.Errorf("OCIRepository %+v (pushed %s)", repo, digest)
		}
		if !strings.Contains(string(flux), strings.TrimSpace(strings.Split(string(pub), "\n")[1])) {
			t.Error("the Secret does not carry the public key")
		}
		if _, err := os.Stat(filepath.Join(dir, "clusters", "prod", "hello", "kustomization.yaml")); err != nil {
			t.Errorf("render --format kustomize: %v", err)
		}
	})
}

// checkRBACCovers: every object the Job applies is allowed by a rule bound to
// its ServiceAccount — patch always, create unless the object is created
// beforehand by the install manifests (the add-on's Namespace).
func checkRBACCovers(t *testing.T, install, applied []k8sObject) {
	t.Helper()
	roles := map[string][]rbacRule{} // "Role/ns/name" or "ClusterRole//name"
	for _, o := range install {
		if o.Kind == "Role" || o.Kind == "ClusterRole" {
			roles[o.Kind+"/"+o.Metadata.Namespace+"/"+o.Metadata.Name] = o.Rules
		}
	}
	type grant struct {
		namespace string // "" for cluster-wide
		rules     []rbacRule
	}
	var grants []grant
	for _, o := range install {
		switch o.Kind {
		case "RoleBinding":
			grants = append(grants, grant{o.Metadata.Namespace, roles[o.RoleRef.Kind+"/"+o.Metadata.Namespace+"/"+o.RoleRef.Name]})
		case "ClusterRoleBinding":
			grants = append(grants, grant{"", roles["ClusterRole//"+o.RoleRef.Name]})
		}
	}
	existing := map[string]bool{}
	for _, o := range find(install, "Namespace") {
		existing["Namespace/"+o.Metadata.Name] = true
	}
	allowed := func(group, resource, ns, name, verb string) bool {
		for _, g := range grants {
			if g.namespace != "" && g.namespace != ns {
				continue
			}
			for _, r := range g.rules {
				if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) &&
					(len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name)) {
					return true
				}
			}
		}
		return false
	}
	for _, o := range applied {
		group := ""
		if i := strings.Index(o.APIVersion, "/"); i >= 0 {
			group = o.APIVersion[:i]
		}
		resource := strings.ToLower(o.Kind) + "s"
		verbs := []string{"patch", "create"}
		if existing[o.Kind+"/"+o.Metadata.Name] {
			verbs = []string{"patch"}
		}
		for _, v := range verbs {
			if !allowed(group, resource, o.Metadata.Namespace, o.Metadata.Name, v) {
				t.Errorf("RBAC does not allow %s on %s %s/%s", v, o.Kind, o.Metadata.Namespace, o.Metadata.Name)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// The Dockerfile and .dockerignore (no Docker engine here: checked, not built)

func TestUseCaseDockerfile(t *testing.T) {
	raw, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	type instr struct{ op, args string }
	var (
		stages [][]instr
		global = map[string]string{}
	)
	text := regexp.MustCompile(`\\\n\s*`).ReplaceAllString(string(raw), " ")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op, args, _ := strings.Cut(line, " ")
		op = strings.ToUpper(op)
		if op == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			if op == "ARG" {
				k, v, _ := strings.Cut(args, "=")
				global[k] = v
			}
			continue
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], instr{op, strings.TrimSpace(args)})
	}
	if len(stages) != 2 {
		t.Fatalf("want a build and a runtime stage, got %d stages", len(stages))
	}
	expand := func(s string) string {
		return regexp.MustCompile(`\$\{?(\w+)\}?`).ReplaceAllStringFunc(s, func(m string) string {
			k := strings.Trim(m, "${}")
			if v, ok := global[k]; ok {
				return v
			}
			return m
		})
	}
	from := func(st []instr) []string { return strings.Fields(expand(st[0].args)) }
	build, runtime := stages[0], stages[1]
	if f := from(build); !slices.Contains(f, "golang:1.26") || f[len(f)-1] != "build" {
		t.Errorf("build stage: FROM %v, want golang:1.26 AS build", f)
	}
	if f := from(runtime); strings.HasPrefix(f[0], "golang") || !strings.HasPrefix(f[0], "alpine:3.") {
		t.Errorf("runtime stage: FROM %v, want a small alpine image (it provides /bin/sh for the Job)", f)
	}
	joined := func(st []instr, op string) string {
		var s []string
		for _, in := range st {
			if in.op == op {
				s = append(s, in.args)
			}
		}
		return strings.Join(s, "\n")
	}
	buildRun := joined(build, "RUN")
	for _, want := range []string{"CGO_ENABLED=0", "go build", "-o /out/addonpack ./cmd/addonpack",
		"https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/${TARGETOS}/${TARGETARCH}", "kubectl.sha256", "sha256sum -c"} {
		if !strings.Contains(buildRun, want) {
			t.Errorf("build stage RUN lacks %q", want)
		}
	}
	if !regexp.MustCompile(`(?m)^KUBECTL_VERSION=v\d+\.\d+\.\d+$`).MatchString(joined(build, "ARG")) {
		t.Errorf("kubectl version not pinned: %q", joined(build, "ARG"))
	}
	if cp := joined(runtime, "COPY"); !strings.Contains(cp, "--from=build /out/addonpack /out/kubectl /usr/local/bin/") {
		t.Errorf("runtime stage COPY: %q", cp)
	}
	users := strings.Fields(joined(runtime, "USER"))
	if len(users) != 1 {
		t.Fatalf("runtime USER: %v", users)
	}
	uid, err := strconv.Atoi(strings.SplitN(users[0], ":", 2)[0])
	if err != nil || uid == 0 {
		t.Errorf("runtime USER %q: want a numeric non-root uid (runAsNonRoot checks it)", users[0])
	}
	// The Job's pod runs as the same uid.
	job, _ := parseJob(t, find(installJob(t), "Job")[0])
	if u := job.Template.Spec.SecurityContext.RunAsUser; u == nil || *u != uid {
		t.Errorf("Job runAsUser %v, image USER %d", u, uid)
	}
	if env := joined(runtime, "ENV"); env != "HOME=/work" {
		t.Errorf("runtime ENV %q: HOME must be the Job's emptyDir /work", env)
	}
	// The build command's target exists in this repository.
	if _, err := os.Stat("../cmd/addonpack/main.go"); err != nil {
		t.Error(err)
	}
}

// TestUseCaseDockerignore: the build context lets through every package and
// embedded file ./cmd/addonpack is built from, and keeps out .git, bin/ and
// private keys.
func TestUseCaseDockerignore(t *testing.T) {
	raw, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	cmd := exec.Command("go", "list", "-deps", "-f", `{{if .Module}}{{if eq .Module.Path "github.com/addonpack/addonpack"}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}{{end}}`, "./cmd/addonpack")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	needed := []string{"go.mod", "go.sum"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		rel, err := filepath.Rel(root, f[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range f[1:] {
			needed = append(needed, filepath.ToSlash(filepath.Join(rel, name)))
		}
	}
	if len(needed) < 30 {
		t.Fatalf("go list found only %d files", len(needed))
	}
	for _, p := range needed {
		if dockerIgnored(patterns, p) {
			t.Errorf(".dockerignore leaves out %s, which the build needs", p)
		}
	}
	for _, p := range []string{".git/config", "bin/addonpack", "examples/policies/keys/release.key", "README.md", "pkg/verify/verify_test.go"} {
		if !dockerIgnored(patterns, p) {
			t.Errorf(".dockerignore lets %s into the build context", p)
		}
	}
}

// dockerIgnored applies .dockerignore rules as Docker does: patterns in
// order, the last match wins, a pattern matching a parent directory matches
// everything under it, ! re-includes, ** spans directories.
func dockerIgnored(patterns []string, p string) bool {
	ignored := false
	for _, pat := range patterns {
		neg := strings.HasPrefix(pat, "!")
		pat = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(strings.TrimPrefix(pat, "!"))), "/")
		re := regexp.MustCompile("^" + dockerPatternRE(pat) + "$")
		parts := strings.Split(p, "/")
		for i := len(parts); i > 0; i-- {
			if re.MatchString(strings.Join(parts[:i], "/")) {
				ignored = !neg
				break
			}
		}
	}
	return ignored
}

func dockerPatternRE(pat string) string {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		switch {
		case strings.HasPrefix(pat[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(pat[i:], "**"):
			b.WriteString(".*")
			i++
		case pat[i] == '*':
			b.WriteString("[^/]*")
		case pat[i] == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// The README "Use cases" section

// TestUseCasesREADMESection: every command the top-level README's "Use cases"
// section shows is one the use-case tests run: a line of an executed example
// README block or of the workflow's run: steps. Until the section is pasted
// into README.md the check runs on ADDONPACK_USECASES_README, if set.
func TestUseCasesREADMESection(t *testing.T) {
	section := ""
	if b, err := os.ReadFile("../README.md"); err == nil {
		if _, rest, ok := strings.Cut(string(b), "\n## Use cases\n"); ok {
			section, _, _ = strings.Cut(rest, "\n## ")
		}
	}
	if section == "" {
		p := os.Getenv("ADDONPACK_USECASES_README")
		if p == "" {
			t.Log(`README.md has no "## Use cases" section yet; set ADDONPACK_USECASES_README to check a draft`)
			return
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		section = string(b)
	}
	var runnable []string
	for _, md := range []string{"policies/README.md", "install-job/README.md"} {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for _, blk := range docBlocks(t, string(b)) {
			if blk.lang == "sh" && (blk.marker == "" || strings.HasPrefix(blk.marker, jobScriptReadme)) {
				runnable = append(runnable, strings.Split(blk.text, "\n")...)
			}
		}
	}
	_, raw := loadWorkflow(t)
	runnable = append(runnable, strings.Split(raw, "\n")...)
	for i := range runnable {
		runnable[i] = strings.TrimSpace(runnable[i])
	}
	checked := 0
	for _, blk := range docBlocks(t, section) {
		// sh: a command a test runs; yaml: lines of the workflow the test runs.
		if blk.lang != "sh" && blk.lang != "yaml" {
			t.Errorf("Use cases: a %q block; want sh or yaml", blk.lang)
		}
		for _, l := range strings.Split(blk.text, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			checked++
			if !slices.Contains(runnable, l) {
				t.Errorf("README Use cases shows %q, which no use-case test runs", l)
			}
		}
	}
	if checked == 0 {
		t.Error("the Use cases section shows no commands")
	}
}

// ---------------------------------------------------------------------------
// Running a README's commands

type docBlock struct {
	line   int    // of the first command line
	marker string // the HTML comment on the line before the fence, if any
	lang   string
	text   string
}

// docBlocks returns the fenced code blocks of md.
func docBlocks(t *testing.T, md string) []docBlock {
	t.Helper()
	var (
		blocks []docBlock
		cur    *docBlock
		prev   string
	)
	for i, l := range strings.Split(md, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &docBlock{line: i + 2, lang: strings.TrimPrefix(l, "```")}
			if strings.HasPrefix(prev, "<!--") {
				cur.marker = prev
			}
		case cur != nil && l == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += l + "\n"
		}
		if strings.TrimSpace(l) != "" {
			prev = strings.TrimSpace(l)
		}
	}
	if cur != nil {
		t.Fatal("unterminated code block")
	}
	return blocks
}

type docResult struct {
	line           int
	command        string
	want           int
	stdout, stderr string
}

var wantExit = regexp.MustCompile(`#\s*exit (\d+)\b`)

// runDocCommands runs the unmarked sh blocks of md in one bash session in
// dir, each command exactly as written, checking each command's exit code:
// the trailing "# exit N" comment, else 0. Blocks marked with an HTML comment
// are not run. env adds to a clean environment (HOME in dir, the built
// addonpack on PATH).
func runDocCommands(t *testing.T, md, dir string, env []string) []docResult {
	t.Helper()
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	logDir := t.TempDir()
	var (
		script  strings.Builder
		results []docResult
	)
	script.WriteString("set -o pipefail\n")
	for _, blk := range docBlocks(t, string(b)) {
		if blk.lang != "sh" || blk.marker != "" {
			continue
		}
		lines := strings.Split(strings.TrimRight(blk.text, "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			if s := strings.TrimSpace(lines[i]); s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			start := i
			for strings.HasSuffix(lines[i], "\\") && i+1 < len(lines) {
				i++
			}
			command := strings.Join(lines[start:i+1], "\n")
			want := 0
			if m := wantExit.FindStringSubmatch(lines[i]); m != nil {
				want, _ = strconv.Atoi(m[1])
			}
			n := len(results)
			results = append(results, docResult{line: blk.line + start, command: command, want: want})
			fmt.Fprintf(&script, "{\n%s\n} >%q 2>%q\nrc=$?\nif [ $rc -ne %d ]; then echo \"README command %d: exit $rc, want %d\" >&2; exit 100; fi\n",
				command, filepath.Join(logDir, fmt.Sprintf("%d.out", n)), filepath.Join(logDir, fmt.Sprintf("%d.err", n)), want, n, want)
		}
	}
	if len(results) == 0 {
		t.Fatalf("%s: no commands", md)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append([]string{
		"HOME=" + home, "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"PATH=" + filepath.Dir(addonpackBin) + string(os.PathListSeparator) + systemPath(),
	}, env...)
	out, err := cmd.CombinedOutput()
	for i := range results {
		o, _ := os.ReadFile(filepath.Join(logDir, fmt.Sprintf("%d.out", i)))
		e, _ := os.ReadFile(filepath.Join(logDir, fmt.Sprintf("%d.err", i)))
		results[i].stdout, results[i].stderr = string(o), string(e)
	}
	if err != nil {
		var failed []string
		for i, r := range results {
			failed = append(failed, fmt.Sprintf("--- %d (%s line %d, want exit %d): %s\nstdout: %s\nstderr: %s", i, md, r.line, r.want, r.command, r.stdout, r.stderr))
		}
		t.Fatalf("%s: %v\n%s\n%s", md, err, out, strings.Join(failed, "\n"))
	}
	return results
}

// ---------------------------------------------------------------------------
// helpers

const testPassword = "usecases-test-password"

// systemPath is $PATH without directories holding another addonpack, so the
// binary under test is the only one found.
func systemPath() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "addonpack")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// addonpack runs the CLI with a clean environment plus env; it returns
// stdout+stderr and the exit code.
func addonpack(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(addonpackBin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + systemPath(), "HOME=" + t.TempDir()}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String() + stderr.String(), exitCode(t, err)
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

func keygen(t *testing.T, dir, name string) {
	t.Helper()
	if out, code := addonpack(t, dir, []string{"COSIGN_PASSWORD=" + testPassword}, "keygen", "--output-key-prefix", name); code != 0 {
		t.Fatalf("keygen: exit %d\n%s", code, out)
	}
}

// gitCommit makes dir a git work tree with origin and one commit; it returns
// the commit id.
func gitCommit(t *testing.T, dir, origin string) string {
	t.Helper()
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + systemPath(), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
			"GIT_AUTHOR_NAME=release", "GIT_AUTHOR_EMAIL=release@example.com", "GIT_COMMITTER_NAME=release", "GIT_COMMITTER_EMAIL=release@example.com",
			"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("remote", "add", "origin", origin)
	git("add", "-A")
	git("commit", "-qm", "release")
	return git("rev-parse", "HEAD")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		copyFile(t, p, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeExecutable(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}
