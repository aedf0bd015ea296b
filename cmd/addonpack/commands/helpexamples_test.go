package commands_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/fakekube"
	"github.com/addonpack/addonpack/testregistry"
)

// TestHelpExamples runs every example of every command's --help as written,
// in process, in the world of the README's quick start: a registry at
// localhost:5000 (here: the test registry's port), the add-on hello pushed
// to localhost:5000/addons/hello:0.1.0 (and 0.2.0) signed with release.key
// (password "secret"), its public key release.pub, a layout ./hello-layout,
// a config my-hello.yaml, a policy.yaml trusting release.pub, an SBOM, and
// a stack addons.yaml of hello with its lock; a TUF repository at
// localhost:8088 (its port here) serving a trusted_root.json, whose initial
// root is tuf-root.json, and that Sigstore trusted root as sigstore-root.json;
// KUBECONFIG names a stand-in API server (internal/fakekube) for preflight.
// Each command's examples run in order, in a fresh copy of that world; the
// root's examples are the quick start itself and run in an empty directory.
// Output piped to kubectl must be non-empty; a directory given to
// 'kubectl apply -k' must hold a kustomization.
func TestHelpExamples(t *testing.T) {
	reg := testregistry.New(t)
	_, port, _ := strings.Cut(reg.Host(), ":")
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	world := helpWorld(t, env, "localhost:"+port)
	tufHost := helpTUFRepository(t, world)
	// preflight's examples ask a stand-in API server (the e2e suite asks a real one).
	env["KUBECONFIG"] = fakekube.New(t).Kubeconfig(t, home)

	var cmds []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		cmds = append(cmds, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(commands.New(commands.Streams{}, func(string) string { return "" }))
	seen := 0
	for _, c := range cmds {
		if c.Example == "" {
			continue
		}
		t.Run(c.CommandPath(), func(t *testing.T) {
			dir := t.TempDir()
			if c.HasParent() {
				if err := os.CopyFS(dir, os.DirFS(world)); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			for _, line := range strings.Split(c.Example, "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				seen++
				if strings.HasPrefix(c.CommandPath(), "addonpack registry serve") {
					line = strings.ReplaceAll(line, ":5000", ":0")
				} else {
					line = strings.ReplaceAll(line, "localhost:5000", "localhost:"+port)
					line = strings.ReplaceAll(line, "localhost:8088", tufHost)
				}
				runExampleLine(t, env, line)
			}
		})
	}
	if seen < 30 {
		t.Fatalf("only %d examples found", seen)
	}
}

// runExampleLine runs one example line: commands joined by &&, each
// optionally prefixed with VAR=value, redirected with > FILE, or piped to
// kubectl (not run here: its input must be non-empty).
func runExampleLine(t *testing.T, env map[string]string, line string) {
	t.Helper()
	if strings.ContainsAny(line, `"'$;`+"`") {
		t.Fatalf("%s: quoting, variables and ; are beyond this runner", line)
	}
	for _, seg := range strings.Split(line, " && ") {
		words := strings.Fields(seg)
		if words[0] == "kubectl" {
			if i := indexOf(words, "-k"); i > 0 {
				if _, err := os.Stat(filepath.Join(words[i+1], "kustomization.yaml")); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
			}
			continue
		}
		cmdEnv := map[string]string{}
		for k, v := range env {
			cmdEnv[k] = v
		}
		for len(words) > 0 && strings.Contains(words[0], "=") {
			k, v, _ := strings.Cut(words[0], "=")
			cmdEnv[k] = v
			words = words[1:]
		}
		var redirect string
		piped := false
		if i := indexOf(words, "|"); i >= 0 {
			if words[i+1] != "kubectl" {
				t.Fatalf("%s: only pipes into kubectl are supported", line)
			}
			words, piped = words[:i], true
		}
		if i := indexOf(words, ">"); i >= 0 {
			words, redirect = words[:i], words[i+1]
		}
		if words[0] != "addonpack" {
			t.Fatalf("%s: not an addonpack command", line)
		}
		var r result
		if len(words) > 2 && words[1] == "registry" && words[2] == "serve" {
			r = runUntilListening(t, cmdEnv, words[1:])
		} else {
			r = run(t, cmdEnv, words[1:]...)
		}
		if r.code != 0 {
			t.Fatalf("%s\nexit %d\nstderr: %s", line, r.code, r.err)
		}
		if piped && r.out == "" {
			t.Fatalf("%s: nothing for kubectl", line)
		}
		if redirect != "" {
			if err := os.WriteFile(redirect, []byte(r.out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// runUntilListening runs a server command until it says it listens, then
// interrupts it as Ctrl-C would.
func runUntilListening(t *testing.T, env map[string]string, args []string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	errw := &signalWriter{want: "listening on", hit: cancel}
	code := commands.Run(ctx, commands.Streams{In: strings.NewReader(""), Out: &out, Err: errw},
		func(k string) string { return env[k] }, args)
	if !strings.Contains(errw.String(), "listening on") {
		return result{out.String(), errw.String(), code}
	}
	return result{out.String(), errw.String(), 0}
}

type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	hit  func()
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.hit()
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func indexOf(words []string, w string) int {
	for i, x := range words {
		if x == w {
			return i
		}
	}
	return -1
}

// helpWorld builds the quick start's state once and returns its directory.
func helpWorld(t *testing.T, env map[string]string, host string) string {
	t.Helper()
	world := t.TempDir()
	t.Chdir(world)
	signEnv := map[string]string{"HOME": env["HOME"], "COSIGN_PASSWORD": "secret"}
	steps := [][]string{
		{"init", "hello"},
		{"keygen", "--output-key-prefix", "release"},
		{"push", "hello", host + "/addons/hello:0.1.0", "--key", "release.key"},
		{"build", "./hello", "-o", "./hello-layout"},
	}
	for _, s := range steps {
		if r := run(t, signEnv, s...); r.code != 0 {
			t.Fatalf("%v: %+v", s, r)
		}
	}
	if err := os.CopyFS("hello-0.2.0", os.DirFS("hello")); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile("hello-0.2.0/addon.yaml")
	os.WriteFile("hello-0.2.0/addon.yaml", bytes.Replace(a, []byte("version: 0.1.0"), []byte("version: 0.2.0"), 1), 0o644)
	if r := run(t, signEnv, "push", "./hello-0.2.0", host+"/addons/hello:0.2.0", "--key", "release.key"); r.code != 0 {
		t.Fatalf("push 0.2.0: %+v", r)
	}
	d := run(t, env, "config", "defaults", "./hello")
	if d.code != 0 {
		t.Fatalf("config defaults: %+v", d)
	}
	files := map[string]string{
		"my-hello.yaml":       d.out,
		"policy.yaml":         "apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\nkeys:\n  - name: release\n    path: release.pub\nscopes:\n  - keys: [release]\n",
		"sbom.spdx.json":      `{"spdxVersion": "SPDX-2.3", "SPDXID": "SPDXRef-DOCUMENT", "name": "hello", "dataLicense": "CC0-1.0"}` + "\n",
		"addons.yaml":         "apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: " + host + "/addons/hello\n    version: \">=0.1.0, <1.0.0\"\n    values: my-hello.yaml\n",
		"mirror.yaml":         mirrorFile("file: policy.yaml", host, "registry: "+host+"/mirror"),
		"mirror-tarball.yaml": mirrorFile("keys: [release.pub]", host, "tarball: mirror.tar"),
		"mirror-airgap.yaml":  mirrorFile("file: policy.yaml", host, "registry: "+host+"/airgap"),
	}
	for name, body := range sigstoreMaterial(t) {
		files[name] = body
	}
	for name, body := range files {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := run(t, env, "lock", "addons.yaml", "--key", "release.pub"); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	return world
}

// mirrorFile is a Mirror file of the help world: hello's 0.x releases from
// host, trusted by policy, to destination.
func mirrorFile(policy, host, destination string) string {
	return "apiVersion: addonpack.dev/v1alpha1\nkind: Mirror\npolicy:\n  " + policy + "\nsources:\n  - repository: " + host +
		"/addons/hello\n    versions: \"0.x\"\ndestination:\n  " + destination + "\n"
}
