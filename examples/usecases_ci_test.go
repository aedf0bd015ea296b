package examples_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/addonpack/addonpack/testregistry"
)

// ---------------------------------------------------------------------------
// (a) the publisher's release pipeline

type ghWorkflow struct {
	Name        string               `yaml:"name"`
	On          map[string]ghTrigger `yaml:"on"`
	Permissions map[string]string    `yaml:"permissions"`
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

// ghTrigger is one event under on: a mapping (push: {tags: …}), or the
// schedule's list of crons.
type ghTrigger struct {
	Tags     []string
	Schedule []string
}

func (g *ghTrigger) UnmarshalYAML(n *yamlv3.Node) error {
	if n.Kind == yamlv3.SequenceNode {
		var crons []struct {
			Cron string `yaml:"cron"`
		}
		if err := n.Decode(&crons); err != nil {
			return err
		}
		for _, c := range crons {
			g.Schedule = append(g.Schedule, c.Cron)
		}
		return nil
	}
	var m map[string][]string
	if err := n.Decode(&m); err != nil {
		return err
	}
	for k := range m {
		if k != "tags" {
			return fmt.Errorf("line %d: trigger field %q the test runner does not know", n.Line, k)
		}
	}
	g.Tags = m["tags"]
	return nil
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
	// ciImageDigest pins the add-on's image in the workflow tests.
	ciImageDigest = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
)

func loadWorkflow(t *testing.T) (ghWorkflow, string) {
	t.Helper()
	return loadWorkflowFile(t, ciWorkflow)
}

// loadWorkflowFile decodes a workflow strictly (unknown keys fail).
func loadWorkflowFile(t *testing.T, path string) (ghWorkflow, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	dec := yamlv3.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&wf); err != nil {
		t.Fatalf("%s: %v", path, err)
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
	checkUpgradeBeforePush(t, wf)
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

// newGHRun prepares the publisher's repository as actions/checkout leaves it:
// the add-on examples/hello in addon/, the public key in cosign.pub, origin on
// GitHub.
func newGHRun(t *testing.T, registryHost, tag string) *ghRun {
	t.Helper()
	return newGHRunOf(t, registryHost, "hello", tag)
}

// newGHRunOf is newGHRun with the add-on addon (a directory) checked out.
func newGHRunOf(t *testing.T, registryHost, addon, tag string) *ghRun {
	t.Helper()
	keyDir := t.TempDir()
	keygen(t, keyDir, "release")
	privateKey, err := os.ReadFile(filepath.Join(keyDir, "release.key"))
	if err != nil {
		t.Fatal(err)
	}
	r := &ghRun{publicKey: filepath.Join(keyDir, "release.pub")}
	r.secrets = map[string]string{
		"ADDON_SIGNING_KEY": string(privateKey), "COSIGN_PASSWORD": testPassword, "GITHUB_TOKEN": ciToken,
	}
	r.vars = map[string]string{"ADDON_REGISTRY": registryHost + "/" + ciOwner}
	r.checkout(t, addon, tag)
	return r
}

// checkout lays out, for a fresh runner, the publisher's repository at tag
// as actions/checkout leaves it: the add-on addon (a directory) in addon/,
// the public key in cosign.pub, origin on GitHub. A second checkout is the
// run of the next release: same keys, same registry.
func (r *ghRun) checkout(t *testing.T, addon, tag string) {
	t.Helper()
	root := t.TempDir()
	r.workspace = filepath.Join(root, "work", "hello-addon")
	r.temp = filepath.Join(root, "runner-temp")
	r.home = filepath.Join(root, "home")
	r.goShimLog = filepath.Join(root, "go-install.log")
	for _, d := range []string{r.workspace, r.temp, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyDir(t, addon, filepath.Join(r.workspace, "addon"))
	// The image pinned by digest: the SBOM the workflow attaches then needs no
	// lookup beyond loopback.
	dep := filepath.Join(r.workspace, "addon", "deployment.yaml")
	b, err := os.ReadFile(dep)
	if err != nil {
		t.Fatal(err)
	}
	pinned := bytes.ReplaceAll(b, []byte("docker.io/hashicorp/http-echo:1.0.0"), []byte("docker.io/hashicorp/http-echo:1.0.0@"+ciImageDigest))
	if err := os.WriteFile(dep, pinned, 0o644); err != nil {
		t.Fatal(err)
	}
	copyFile(t, r.publicKey, filepath.Join(r.workspace, "cosign.pub"))
	sha := gitCommit(t, r.workspace, "https://github.com/"+ciRepo)
	r.github = map[string]string{
		"ref": "refs/tags/" + tag, "ref_name": tag, "repository": ciRepo, "repository_owner": ciOwner,
		"actor": ciActor, "sha": sha, "server_url": "https://github.com",
		"workflow_ref": ciWorkflowID + "@refs/tags/" + tag,
	}
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
	if log := r.logs[ciCheckUpgrade]; !strings.Contains(log, "no previous release: ") {
		t.Errorf("the first release's check-upgrade said:\n%s", log)
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
		"--require-attestation", reportType, "--format", "json")
	if code != 0 {
		t.Fatalf("verify with the workflow's builder id: exit %d\n%s", code, out)
	}
	var list []struct {
		Verified bool `json:"verified"`
		Result   struct {
			SignedBy     []string `json:"signedBy"`
			Attestations []struct {
				PredicateType string `json:"predicateType"`
				Verdict       string `json:"verdict"`
			} `json:"attestations"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("verify -o json: %v\n%s", err, out)
	}
	verified, res := list[0].Verified, list[0].Result
	valid := map[string]bool{}
	for _, a := range res.Attestations {
		if a.Verdict == "valid" {
			valid[a.PredicateType] = true
		}
	}
	if !verified || len(res.SignedBy) != 1 || !valid["https://slsa.dev/provenance/v1"] || !valid[reportType] || !valid["https://cyclonedx.org/bom"] {
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
