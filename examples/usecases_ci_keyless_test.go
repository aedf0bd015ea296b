package examples_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/internal/peertool"
	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/testregistry"
)

const ciKeylessWorkflow = "ci/github-actions-keyless.yaml"

func loadKeylessWorkflow(t *testing.T) (ghWorkflow, string) {
	t.Helper()
	return loadWorkflowFile(t, ciKeylessWorkflow)
}

// TestUseCaseCIKeylessWorkflowShape: the keyless variant asks for the OIDC
// token and nothing more, signs with --keyless everywhere, holds no key
// secret, and defaults to Sigstore's public-good services.
func TestUseCaseCIKeylessWorkflowShape(t *testing.T) {
	wf, raw := loadKeylessWorkflow(t)
	if wf.Permissions["id-token"] != "write" || wf.Permissions["contents"] != "read" || wf.Permissions["packages"] != "write" || len(wf.Permissions) != 3 {
		t.Errorf("permissions: want contents: read, packages: write, id-token: write; got %v", wf.Permissions)
	}
	if wf.Env["FULCIO_URL"] != "https://fulcio.sigstore.dev" || wf.Env["REKOR_URL"] != "https://rekor.sigstore.dev" || wf.Env["TSA_URL"] != "https://timestamp.sigstore.dev/api/v1/timestamp" {
		t.Errorf("service URLs: %v", wf.Env)
	}
	for _, bad := range []string{"ADDON_SIGNING_KEY", "COSIGN_PASSWORD", "--key "} {
		if strings.Contains(raw, bad) {
			t.Errorf("the keyless workflow mentions %q", bad)
		}
	}
	signing := 0
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if strings.Contains(s.Run, "addonpack push") || strings.Contains(s.Run, "addonpack attest") {
				signing++
				if !strings.Contains(s.Run, "--keyless") || !strings.Contains(s.Run, `--fulcio-url "$FULCIO_URL"`) || !strings.Contains(s.Run, `--rekor-url "$REKOR_URL"`) || !strings.Contains(s.Run, `--timestamp-server-url "$TSA_URL"`) {
					t.Errorf("step %q does not sign keyless against $FULCIO_URL, $REKOR_URL and $TSA_URL:\n%s", s.Name, s.Run)
				}
			}
		}
	}
	if signing != 2 {
		t.Errorf("%d signing steps, want push and attest", signing)
	}
	checkUpgradeBeforePush(t, wf)
	if wf.Env["TRUSTED_ROOT"] != "trusted_root.json" {
		t.Errorf("TRUSTED_ROOT = %q, want the committed trusted_root.json", wf.Env["TRUSTED_ROOT"])
	}
	publicGoodDigest(t) // the consumer's policy pins the root it ships
}

// TestUseCaseCIKeylessWorkflow runs the keyless workflow's steps on a tag
// push with the Actions token endpoint, Fulcio and Rekor played by local
// test servers (the workflow's FULCIO_URL, REKOR_URL and TSA_URL pointed at them),
// then has the real cosign CLI verify the pushed signature and provenance
// for the workflow's identity, and refuse the identity of a branch build.
func TestUseCaseCIKeylessWorkflow(t *testing.T) {
	cosign := peertool.Path(t, "cosign")
	wf, _ := loadKeylessWorkflow(t)
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := testsigstore.StartServers(t, ss)
	w := testsigstore.GitHubWorkflow{Repository: ciRepo, Workflow: ".github/workflows/release.yaml", Ref: "refs/tags/v0.1.0"}
	wf.Env["FULCIO_URL"], wf.Env["REKOR_URL"], wf.Env["TSA_URL"] = srv.Fulcio.URL, srv.Rekor.URL, srv.TSA.URL
	root := srv.TrustedRootFile(t)
	wf.Env["TRUSTED_ROOT"] = root // the publisher commits the public-good root

	reg := testregistry.New(t, testregistry.WithBasicAuth(ciActor, ciToken))
	r := newGHRun(t, reg.Host(), "v0.1.0")
	r.runtimeEnv = srv.ActionsTokenEnv(t, w.Claims())
	if failed, out := r.runWorkflow(t, wf); failed != "" {
		t.Fatalf("step %q failed:\n%s", failed, out)
	}
	ref := r.outputs["push"]["ref"]
	if !strings.HasPrefix(ref, reg.Host()+"/acme/addons/hello@sha256:") {
		t.Fatalf("pushed %q", ref)
	}
	identity := "https://github.com/" + ciWorkflowID + "@refs/tags/v0.1.0"
	if identity != w.Identity().URI {
		t.Fatalf("the test's workflow identity %s is not the run's %s", w.Identity().URI, identity)
	}
	summary, _ := os.ReadFile(r.summary)
	if !strings.Contains(string(summary), "Signed keyless by `"+identity+"`") {
		t.Errorf("step summary: %q", summary)
	}
	if log := r.logs[ciCheckUpgrade]; !strings.Contains(log, "no previous release: ") {
		t.Errorf("the first release's check-upgrade said:\n%s", log)
	}
	if n := len(srv.Fulcio.Issued()); n != 2 {
		t.Errorf("Fulcio issued %d certificates, want one for push and one for attest", n)
	}
	cosignRun := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		home := t.TempDir()
		cmd := exec.CommandContext(ctx, cosign, append(args, "--new-bundle-format", "--trusted-root", root,
			"--certificate-oidc-issuer", testsigstore.GitHubActionsIssuer, "--allow-insecure-registry", ref)...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + systemPath(), "DOCKER_CONFIG=" + r.dockerConfig, "TUF_ROOT=" + filepath.Join(home, "tuf")}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, args := range [][]string{
		{"verify", "--certificate-identity-regexp", "^https://github.com/" + ciRepo + "/.github/workflows/release.yaml@refs/tags/"}, // as examples/ci/README.md
		{"verify-attestation", "--type", "slsaprovenance1", "--certificate-identity", identity},
		{"verify-attestation", "--type", reportType, "--certificate-identity", identity},
	} {
		if out, err := cosignRun(args...); err != nil {
			t.Errorf("cosign %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	branch := "https://github.com/" + ciWorkflowID + "@refs/heads/main"
	if out, err := cosignRun("verify", "--certificate-identity", branch); err == nil {
		t.Errorf("cosign verify for a branch build's identity passed:\n%s", out)
	}

	// The consumer's policy, policies/keyless-workflow.yaml, with the test
	// Sigstore's root pinned instead of the public-good one and the local
	// registry instead of ghcr.io: addonpack verify accepts the release
	// (signature and provenance by the workflow identity), and refuses it
	// when the identity names another repository.
	env := []string{"DOCKER_CONFIG=" + r.dockerConfig}
	dir := filepath.Dir(root)
	policy := keylessPolicy(t, dir, root, reg.Host(), "")
	if out, code := addonpack(t, dir, env, "verify", reg.Host()+"/acme/addons/hello:0.1.0", "--policy", policy); code != 0 {
		t.Errorf("verify --policy keyless-workflow.yaml: exit %d\n%s", code, out)
	}
	other := keylessPolicy(t, dir, root, reg.Host(), "acme/other-addon")
	if out, code := addonpack(t, dir, env, "verify", ref, "--policy", other); code != 9 {
		t.Errorf("verify with another repository's identity: exit %d, want 9\n%s", code, out)
	}

	// The next release, 0.2.0: check-upgrade verifies 0.1.0's keyless
	// signature (the trusted root, the repository's workflows) before the
	// comparison, and the release goes on.
	next := filepath.Join(t.TempDir(), "hello")
	copyDir(t, "hello", next)
	replaceInFile(t, filepath.Join(next, "addon.yaml"), "version: 0.1.0", "version: 0.2.0")
	r.checkout(t, next, "v0.2.0")
	w.Ref = "refs/tags/v0.2.0"
	r.runtimeEnv = srv.ActionsTokenEnv(t, w.Claims())
	if failed, out := r.runWorkflow(t, wf); failed != "" {
		t.Fatalf("0.2.0: step %q failed:\n%s", failed, out)
	}
	if log := r.logs[ciCheckUpgrade]; !strings.Contains(log, "resolved "+reg.Host()+"/acme/addons/hello:0.1.0@") || !strings.Contains(log, "can upgrade to ./addon") {
		t.Errorf("0.2.0: check-upgrade said:\n%s", log)
	}
}

// keylessPolicy writes policies/keyless-workflow.yaml into dir with root
// (a trusted_root.json) pinned instead of the public-good root, host for
// ghcr.io, and, when repo is set, that repository in the identity.
func keylessPolicy(t *testing.T, dir, root, host, repo string) string {
	t.Helper()
	raw, err := os.ReadFile("policies/keyless-workflow.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rootBytes, err := os.ReadFile(root)
	if err != nil {
		t.Fatal(err)
	}
	p := strings.NewReplacer(
		"path: public-good-trusted-root.json", "path: "+filepath.Base(root),
		publicGoodDigest(t), "sha256:"+sha256Hex(rootBytes),
		"ghcr.io/acme/addons", host+"/acme/addons",
	).Replace(string(raw))
	name := "policy.yaml"
	if repo != "" {
		p = strings.Replace(p, "githubWorkflowRepository: acme/hello-addon", "githubWorkflowRepository: "+repo, 1)
		name = "policy-other.yaml"
	}
	out := filepath.Join(dir, name)
	if err := os.WriteFile(out, []byte(p), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// publicGoodDigest is the digest keyless-workflow.yaml pins, checked
// against the root file beside it.
func publicGoodDigest(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("policies/keyless-workflow.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`digest: (sha256:[0-9a-f]{64})`).FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatal("policies/keyless-workflow.yaml pins no trusted root digest")
	}
	b, err := os.ReadFile("policies/public-good-trusted-root.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := "sha256:" + sha256Hex(b); got != m[1] {
		t.Fatalf("policies/keyless-workflow.yaml pins %s, public-good-trusted-root.json is %s", m[1], got)
	}
	return m[1]
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
