package commands_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/testregistry"
)

// keylessCLI is a test Sigstore on loopback, its trusted root in a file,
// and a GitHub workflow identity token in another.
type keylessCLI struct {
	ss        *testsigstore.Sigstore
	srv       *testsigstore.Servers
	workflow  testsigstore.GitHubWorkflow
	root      string // trusted_root.json
	tokenFile string
}

func newKeylessCLI(t *testing.T) *keylessCLI {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	k := &keylessCLI{ss: ss, srv: testsigstore.StartServers(t, ss),
		workflow: testsigstore.GitHubWorkflow{Repository: "example/hello", Workflow: ".github/workflows/release.yml", Ref: "refs/tags/v0.1.0"}}
	k.root, k.tokenFile = k.srv.TrustedRootFile(t), filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(k.tokenFile, []byte(k.srv.Token(t, k.workflow.Claims())), 0o600); err != nil {
		t.Fatal(err)
	}
	return k
}

// flags are the keyless flags pointing at the test services.
func (k *keylessCLI) flags(tsa bool) []string {
	tsaURL := "" // none: the default, Sigstore's public-good TSA, is not reachable here
	if tsa {
		tsaURL = k.srv.TSA.URL
	}
	return []string{"--keyless", "--fulcio-url", k.srv.Fulcio.URL, "--rekor-url", k.srv.Rekor.URL, "--timestamp-server-url", tsaURL, "--trusted-root", k.root}
}

type keylessSig struct{ Kind, Format, PredicateType, Identity, Issuer, KeyID, Location string }

// TestKeylessPush: push --keyless signs and attests provenance and an SBOM
// with a Fulcio certificate for the workflow's identity, each bundle
// verified against the trusted root as it is made, on both registries;
// then sign and attest --keyless on the pushed artifact.
func TestKeylessPush(t *testing.T) {
	k := newKeylessCLI(t)
	for i, reg := range bothRegistries {
		t.Run(reg.name, func(t *testing.T) {
			host := reg.host(t)
			src := filepath.Join(t.TempDir(), "hello")
			if r := run(t, nil, "init", src); r.code != 0 {
				t.Fatalf("init: %+v", r)
			}
			// The image pinned: tests reach only loopback, and the SBOM
			// resolves every tag it lists.
			dep := filepath.Join(src, "deployment.yaml")
			b, _ := os.ReadFile(dep)
			os.WriteFile(dep, bytes.ReplaceAll(b, []byte("http-echo:1.0.0"), []byte("http-echo:1.0.0@sha256:"+strings.Repeat("ab", 32))), 0o644)
			ref := host + "/addons/hello:0.1.0"
			args := append([]string{"push", src, ref, "--identity-token", "@" + k.tokenFile, "--sbom", "--format", "json"}, k.flags(i == 1)...)
			p := run(t, nil, args...)
			if p.code != 0 {
				t.Fatalf("push --keyless: %+v", p)
			}
			var pushed struct{ Signatures []keylessSig }
			if err := json.Unmarshal([]byte(p.out), &pushed); err != nil || len(pushed.Signatures) != 3 {
				t.Fatalf("push output: %v %s", err, p.out)
			}
			id := k.workflow.Identity()
			for _, s := range pushed.Signatures {
				if s.Format != "bundle" || s.Identity != id.URI || s.Issuer != testsigstore.GitHubActionsIssuer || s.KeyID != "" || !strings.Contains(s.Location, "@sha256:") {
					t.Errorf("signature %+v", s)
				}
			}
			if pushed.Signatures[1].PredicateType != "https://slsa.dev/provenance/v1" {
				t.Errorf("second signature %+v, want the SLSA provenance", pushed.Signatures[1])
			}
			s := run(t, nil, append([]string{"sign", ref, "--identity-token", "@" + k.tokenFile}, k.flags(false)[1:]...)...)
			if s.code != 0 || !strings.Contains(s.out, "with "+id.URI+" ("+testsigstore.GitHubActionsIssuer+") (bundle)") {
				t.Fatalf("sign --keyless: %+v", s)
			}
			pred := filepath.Join(t.TempDir(), "report.json")
			if err := os.WriteFile(pred, []byte(`{"passed":true}`), 0o644); err != nil {
				t.Fatal(err)
			}
			a := run(t, nil, append([]string{"attest", ref, "--identity-token", "@" + k.tokenFile, "--predicate", pred, "--type", "custom"}, k.flags(false)[1:]...)...)
			if a.code != 0 || !strings.Contains(a.out, "with "+id.URI) {
				t.Fatalf("attest --keyless: %+v", a)
			}
		})
	}
}

// In a GitHub Actions job with id-token: write, --keyless alone picks up
// the job's token (audience sigstore).
func TestKeylessActionsAmbientToken(t *testing.T) {
	k := newKeylessCLI(t)
	env := k.srv.ActionsTokenEnv(t, k.workflow.Claims())
	host := testregistry.New(t).Host()
	src := filepath.Join(t.TempDir(), "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	p := run(t, env, append([]string{"push", src, host + "/addons/hello:0.1.0"}, k.flags(false)...)...)
	if p.code != 0 || !strings.Contains(p.err, "with "+k.workflow.Identity().URI) {
		t.Fatalf("push --keyless in Actions: %+v", p)
	}
}

func TestKeylessRefusals(t *testing.T) {
	k := newKeylessCLI(t)
	host := testregistry.New(t).Host()
	src := filepath.Join(t.TempDir(), "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	other, err := testsigstore.NewOIDCIssuer()
	if err != nil {
		t.Fatal(err)
	}
	forged, err := other.Token(k.workflow.Claims())
	if err != nil {
		t.Fatal(err)
	}
	ref := host + "/addons/hello:0.1.0"
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"key and keyless", []string{"--keyless", "--key", "x.key"}, commands.ExitUsage, "exclusive"},
		{"classic format", []string{"--keyless", "--signature-format", "classic"}, commands.ExitUsage, "--signature-format classic"},
		{"Fulcio URL without keyless", []string{"--fulcio-url", k.srv.Fulcio.URL}, commands.ExitUsage, "--fulcio-url needs --keyless"},
		{"no identity token", []string{"--keyless"}, commands.ExitUsage, "id-token: write"},
		{"bad Fulcio URL", []string{"--identity-token", forged, "--fulcio-url", "fulcio"}, commands.ExitUsage, "Fulcio URL"},
		{"malformed token", []string{"--identity-token", "t"}, commands.ExitInvalid, "not a JWT"},
		{"token Fulcio refuses", append([]string{"--identity-token", forged}, k.flags(false)...), commands.ExitInvalid, "Fulcio returned 401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, nil, append([]string{"push", src, ref}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.err, tc.says) {
				t.Fatalf("got exit %d %q, want %d saying %q", r.code, r.err, tc.code, tc.says)
			}
		})
	}
	// Nothing was pushed: the refused token was found out before any write.
	if r := run(t, nil, "inspect", ref); r.code != commands.ExitNotFound {
		t.Errorf("inspect after refused pushes: %+v", r)
	}
}
