package commands_test

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/fakekube"
)

// TestPreflight runs preflight against a stand-in API server: each case
// names the exit code (docs/exit-codes.md) and what the output must say;
// the e2e suite runs the checks against a real one.
func TestPreflight(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	fake := fakekube.New(t)
	fake.Deny = func(r fakekube.Review) bool {
		return r.User == "bob" && r.Verb == "create" && r.Resource == "deployments"
	}
	kubeconfig := fake.Kubeconfig(t, dir)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := filepath.Join(dir, "unreachable")
	if err := os.MkdirAll(unreachable, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile(kubeconfig)
	os.WriteFile(filepath.Join(unreachable, "kubeconfig"), []byte(strings.Replace(string(cfg), fake.URL, "http://"+closed.Addr().String(), 1)), 0o600)
	closed.Close()
	env := map[string]string{"HOME": t.TempDir(), "KUBECONFIG": kubeconfig}

	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want []string // in stdout, then stderr
	}{
		{"passes", env, []string{src}, commands.ExitOK,
			[]string{"Cluster " + fake.URL + " (Kubernetes v1.34.4)", "hello 0.1.0", "8 access reviews", "Preflight passed"}},
		{"a right denied, by --as", env, []string{src, "--as", "bob"}, commands.ExitVerify,
			[]string{`access reviewed for user "bob"`, `FAIL access: apps/v1 Deployment hello/hello: may not create deployments.apps "hello" in namespace hello`,
				"Preflight failed: 1 findings", "preflight failed: access: hello: apps/v1 Deployment hello/hello"}},
		{"--kubeconfig", map[string]string{"HOME": env["HOME"]}, []string{src, "--kubeconfig", kubeconfig}, commands.ExitOK, []string{"Preflight passed"}},
		{"a kubeconfig that is not there", env, []string{src, "--kubeconfig", filepath.Join(dir, "nope")}, commands.ExitNotFound, []string{"--kubeconfig"}},
		{"no kubeconfig at all", map[string]string{"HOME": t.TempDir()}, []string{src}, commands.ExitInvalid, []string{"no usable cluster configuration"}},
		{"an unknown context", env, []string{src, "--context", "elsewhere"}, commands.ExitInvalid, []string{"elsewhere"}},
		{"unreachable", map[string]string{"HOME": env["HOME"], "KUBECONFIG": filepath.Join(unreachable, "kubeconfig")}, []string{src}, commands.ExitUnreachable, []string{"cluster unreachable"}},
		{"neither an add-on nor a stack", env, nil, commands.ExitUsage, []string{"give one REF, LAYOUT or DIR"}},
		{"values with a stack", env, []string{"--stack", "addons.yaml", "--values", "v.yaml"}, commands.ExitUsage, []string{"--stack FILE"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, c.env, append([]string{"preflight"}, c.args...)...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, c.code, r.out, r.err)
			}
			for _, w := range c.want {
				if !strings.Contains(r.out+r.err, w) {
					t.Errorf("output lacks %q\nstdout: %s\nstderr: %s", w, r.out, r.err)
				}
			}
		})
	}

	// JSON: the report, also when a check fails; the reviews asked for bob.
	r := run(t, env, "preflight", src, "--as", "bob", "--as-group", "dev", "--format", "json")
	var rep struct {
		ServerVersion, User string
		Groups              []string
		Passed              bool
		Addons              []struct {
			Name     string
			Findings []struct{ Check, Object, Message string }
		}
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || r.code != commands.ExitVerify {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.out)
	}
	if rep.ServerVersion != fakekube.Version || rep.User != "bob" || len(rep.Groups) != 1 || rep.Passed ||
		len(rep.Addons) != 1 || len(rep.Addons[0].Findings) != 1 || rep.Addons[0].Findings[0].Check != "access" {
		t.Errorf("report %+v", rep)
	}
	var asked int
	for _, rv := range fake.Reviews() {
		if rv.User == "bob" {
			asked++
		}
	}
	if asked == 0 {
		t.Error("--as asked no SubjectAccessReview for bob")
	}
}
