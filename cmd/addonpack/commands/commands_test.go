package commands_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

type result struct {
	out, err string
	code     int
}

// run executes the CLI in process, as main does, with env as the environment.
func run(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := commands.Run(context.Background(), commands.Streams{In: strings.NewReader(""), Out: &out, Err: &errb},
		func(k string) string { return env[k] }, args)
	return result{out.String(), errb.String(), code}
}

func TestPublishAndConsume(t *testing.T) {
	reg := testregistry.New(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	ref := reg.Host() + "/addons/hello:0.1.0"

	if r := run(t, nil, "init", src); r.code != 0 || !strings.Contains(r.out, "addon.yaml") {
		t.Fatalf("init: %+v", r)
	}
	b := run(t, nil, "build", src)
	digest := strings.TrimSpace(b.out)
	if b.code != 0 || !strings.HasPrefix(digest, "sha256:") {
		t.Fatalf("build: %+v", b)
	}
	p := run(t, nil, "push", src, ref)
	if p.code != 0 || strings.TrimSpace(p.out) != reg.Host()+"/addons/hello@"+digest {
		t.Fatalf("push printed %q, want REPO@%s (%+v)", p.out, digest, p)
	}

	i := run(t, nil, "inspect", ref, "--format", "json")
	var info struct {
		Digest string
		Addon  struct{ Metadata struct{ Name string } }
		Layers []struct{ MediaType string }
	}
	if err := json.Unmarshal([]byte(i.out), &info); err != nil || i.code != 0 {
		t.Fatalf("inspect -o json: %v %+v", err, i)
	}
	if info.Digest != digest || info.Addon.Metadata.Name != "hello" || info.Layers[0].MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
		t.Fatalf("inspect: %+v", info)
	}
	if r := run(t, nil, "inspect", ref); r.code != 0 || !strings.Contains(r.out, "hello 0.1.0") {
		t.Fatalf("inspect text: %+v", r)
	}

	out := filepath.Join(dir, "pulled")
	if r := run(t, nil, "pull", ref, "-o", out, "--format", "json", "--insecure-skip-verify"); r.code != 0 || !strings.Contains(r.out, digest) {
		t.Fatalf("pull: %+v", r)
	}
	want, _ := os.ReadFile(filepath.Join(src, "kustomization.yaml"))
	got, _ := os.ReadFile(filepath.Join(out, "kustomization.yaml"))
	if !bytes.Equal(want, got) {
		t.Fatal("pulled kustomization.yaml differs")
	}
}

func TestLayoutAndTarball(t *testing.T) {
	reg := testregistry.New(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	run(t, nil, "init", src)
	env := map[string]string{"SOURCE_DATE_EPOCH": "1700000000"}
	layoutDir, tarball := filepath.Join(dir, "layout"), filepath.Join(dir, "hello.tar")
	a := run(t, env, "build", src, "-o", layoutDir)
	b := run(t, env, "build", src, "--tarball", tarball)
	if a.code != 0 || b.code != 0 || a.out != b.out {
		t.Fatalf("builds differ: %+v %+v", a, b)
	}
	if plain := run(t, nil, "build", src); plain.out == a.out {
		t.Fatal("SOURCE_DATE_EPOCH did not change the created annotation")
	}
	first, _ := os.ReadFile(tarball)
	run(t, env, "build", src, "--tarball", tarball)
	second, _ := os.ReadFile(tarball)
	if !bytes.Equal(first, second) {
		t.Fatal("the layout tarball is not reproducible")
	}
	for _, source := range []string{layoutDir, tarball, tarball + ":0.1.0"} {
		r := run(t, nil, "push", source, reg.Host()+"/addons/hello:0.1.0")
		if r.code != 0 || !strings.HasSuffix(strings.TrimSpace(r.out), strings.TrimSpace(a.out)) {
			t.Fatalf("push %s: %+v", source, r)
		}
	}
	if r := run(t, nil, "inspect", layoutDir); r.code != 0 || !strings.Contains(r.out, "hello 0.1.0") {
		t.Fatalf("inspect layout: %+v", r)
	}
	if r := run(t, nil, "push", tarball+":9.9.9", reg.Host()+"/addons/hello:x"); r.code == 0 || !strings.Contains(r.err, "9.9.9") {
		t.Fatalf("push of a missing layout tag: %+v", r)
	}
}

func TestExitCodes(t *testing.T) {
	reg := testregistry.New(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	run(t, nil, "init", src)
	run(t, nil, "push", src, reg.Host()+"/addons/hello:0.1.0")
	bad := filepath.Join(dir, "bad")
	run(t, nil, "init", bad)
	if err := os.WriteFile(filepath.Join(bad, "config", "defaults.yaml"), []byte("apiVersion: bad.addons.example.com/v1alpha1\nkind: BadConfig\nmetadata: {name: bad}\nspec: {replicas: 0, message: \"\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Packages over the render bounds (specs/artifact.md section 9).
	bomb, deep, recursive := filepath.Join(dir, "bomb"), filepath.Join(dir, "deep"), filepath.Join(dir, "recursive")
	for src, file := range map[string]string{
		bomb: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  a: &a [x,x,x,x,x,x,x,x,x]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n",
		deep: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\nx: " + strings.Repeat("{a: ", 9000) + "1" + strings.Repeat("}", 9000) + "\n",
	} {
		run(t, nil, "init", src)
		kust, _ := os.ReadFile(filepath.Join(src, "kustomization.yaml"))
		os.WriteFile(filepath.Join(src, "kustomization.yaml"), bytes.Replace(kust, []byte("  - service.yaml\n"), []byte("  - service.yaml\n  - hostile.yaml\n"), 1), 0o644)
		os.WriteFile(filepath.Join(src, "hostile.yaml"), []byte(file), 0o644)
	}
	run(t, nil, "init", recursive)
	os.WriteFile(filepath.Join(recursive, "config", "schema.yaml"), []byte("type: object\nproperties:\n  replicas: {type: integer, default: 1}\n  message: {type: string, default: x}\n  more: {$ref: '#', default: {}}\n"), 0o644)
	nonEmpty := filepath.Join(dir, "full")
	os.MkdirAll(nonEmpty, 0o755)
	os.WriteFile(filepath.Join(nonEmpty, "x"), nil, 0o644)
	closed := closedPort(t)

	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no arguments", []string{"build"}, commands.ExitUsage, []string{"accepts 1 arg"}},
		{"unknown flag", []string{"build", src, "--nope"}, commands.ExitUsage, []string{"--nope"}},
		{"bad reference", []string{"push", src, "UPPER/Case:tag"}, commands.ExitUsage, []string{"UPPER/Case:tag"}},
		{"pull without -o", []string{"pull", reg.Host() + "/addons/hello:0.1.0"}, commands.ExitUsage, []string{"-o DIR is required"}},
		{"pull without trust flags", []string{"pull", reg.Host() + "/addons/hello:0.1.0", "-o", filepath.Join(dir, "o")}, commands.ExitUsage, []string{"--key", "--insecure-skip-verify"}},
		{"pull of an unsigned artifact", []string{"pull", reg.Host() + "/addons/hello:0.1.0", "-o", filepath.Join(dir, "o"), "--key", filepath.Join(dir, "none.pub")}, commands.ExitNotFound, []string{"none.pub"}},
		{"invalid defaults", []string{"build", bad}, commands.ExitInvalid, []string{filepath.Join(bad, "config", "defaults.yaml"), "spec.replicas", "spec.message"}},
		{"YAML alias bomb", []string{"build", bomb}, commands.ExitInvalid, []string{"hostile.yaml", "aliases expand"}},
		{"deep YAML", []string{"build", deep}, commands.ExitInvalid, []string{"hostile.yaml", "nested more than 200 levels"}},
		{"recursive defaults", []string{"config", "defaults", recursive}, commands.ExitInvalid, []string{"schema.yaml", "nests more than 100 levels"}},
		{"not an add-on", []string{"build", dir}, commands.ExitInvalid, []string{"addon.yaml: missing"}},
		{"missing source dir", []string{"build", filepath.Join(dir, "nope")}, commands.ExitNotFound, []string{"nope"}},
		{"unknown tag", []string{"pull", reg.Host() + "/addons/hello:9.9.9", "-o", filepath.Join(dir, "o"), "--insecure-skip-verify"}, commands.ExitNotFound, []string{"addons/hello:9.9.9", `has no tag "9.9.9"`, "closest of its 1 tags: 0.1.0"}},
		{"copy of an unknown tag", []string{"copy", reg.Host() + "/addons/hello:0.1.1", reg.Host() + "/mirror/hello", "--insecure-skip-verify"}, commands.ExitNotFound, []string{`has no tag "0.1.1"`, "0.1.0"}},
		{"unknown repository", []string{"render", reg.Host() + "/addons/hellp:0.1.0", "--insecure-skip-verify"}, commands.ExitNotFound, []string{"repository " + reg.Host() + "/addons/hellp does not exist"}},
		{"unreachable registry", []string{"inspect", closed + "/addons/hello:0.1.0"}, commands.ExitUnreachable, []string{closed, "nothing is listening"}},
		{"target not empty", []string{"pull", reg.Host() + "/addons/hello:0.1.0", "-o", nonEmpty, "--insecure-skip-verify"}, commands.ExitConflict, []string{nonEmpty, "--force"}},
		{"init into a non-empty dir", []string{"init", src}, commands.ExitConflict, []string{src}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, nil, tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit code %d, want %d\nstderr: %s", r.code, tt.code, r.err)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.err, w) {
					t.Errorf("stderr does not name %q:\n%s", w, r.err)
				}
			}
		})
	}
}

func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens here now: connections are refused
	return addr
}

func TestHelp(t *testing.T) {
	for _, verb := range []string{"init", "build", "push", "pull", "inspect", "registry serve", "version"} {
		r := run(t, nil, append(strings.Fields(verb), "--help")...)
		if r.code != 0 || !strings.Contains(r.out, "Usage:") {
			t.Errorf("%s --help: %+v", verb, r)
		}
		if verb != "version" && !strings.Contains(r.out, "Examples:") && verb != "registry serve" {
			t.Errorf("%s --help has no examples", verb)
		}
	}
	if r := run(t, nil, "completion", "bash"); r.code != 0 || !strings.Contains(r.out, "addonpack") {
		t.Errorf("completion: %+v", r)
	}
	if r := run(t, nil, "version"); r.code != 0 || !strings.HasPrefix(r.out, "addonpack ") {
		t.Errorf("version: %+v", r)
	}
}

// TestStalledRegistry: a registry that sends the headers and part of a
// blob, then nothing, is given up after --read-timeout (a download is
// resumed twice first): exit 5, and nothing is left in the target's parent.
func TestStalledRegistry(t *testing.T) {
	st := testregistry.NewMemoryStorage()
	clean := testregistry.New(t, testregistry.WithStorage(st))
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	run(t, nil, "init", src)
	if r := run(t, nil, "push", src, clean.Host()+"/addons/hello:0.1.0"); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	stalled := testregistry.New(t, testregistry.WithStorage(st), testregistry.WithFaults(testregistry.Faults{Rules: []testregistry.FaultRule{
		{Match: testregistry.MatchBlobGET(), Kind: testregistry.StallMidway},
	}}))
	parent := filepath.Join(dir, "parent")
	os.MkdirAll(parent, 0o755)
	for _, args := range [][]string{
		{"pull", stalled.Host() + "/addons/hello:0.1.0", "-o", filepath.Join(parent, "out"), "--insecure-skip-verify", "--no-cache", "--read-timeout", "100ms"},
		{"render", stalled.Host() + "/addons/hello:0.1.0", "--insecure-skip-verify", "--no-cache", "--read-timeout", "100ms"},
	} {
		r := run(t, nil, args...)
		if r.code != commands.ExitUnreachable || !strings.Contains(r.err, "stalled") || !strings.Contains(r.err, "sha256:") {
			t.Errorf("%s: exit %d, want %d naming the stall and the blob\n%s", args[0], r.code, commands.ExitUnreachable, r.err)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if r := run(t, nil, "pull", clean.Host()+"/addons/hello:0.1.0", "-o", filepath.Join(parent, "out"), "--insecure-skip-verify", "--read-timeout", "-1s"); r.code != commands.ExitUsage {
		t.Errorf("--read-timeout -1s: exit %d, want %d", r.code, commands.ExitUsage)
	}
}

// TestRenderKustomizeStaysInside: a published package holding a
// kustomization that points at host paths (one the root does not reach, so
// the builder's render check never saw it) is refused by render --format
// kustomize -o: exit 3, naming the file, and no directory is written.
func TestRenderKustomizeStaysInside(t *testing.T) {
	reg := testregistry.New(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	run(t, nil, "init", src)
	os.MkdirAll(filepath.Join(src, "extra"), 0o755)
	os.WriteFile(filepath.Join(src, "extra", "kustomization.yaml"), []byte("configMapGenerator:\n- name: leak\n  files: [/etc/passwd]\n"), 0o644)
	ref := reg.Host() + "/addons/hello:0.1.0"
	if r := run(t, nil, "push", src, ref); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	out := filepath.Join(dir, "out")
	r := run(t, nil, "render", ref, "--insecure-skip-verify", "--format", "kustomize", "-o", out)
	if r.code != commands.ExitInvalid || !strings.Contains(r.err, `extra/kustomization.yaml: configMapGenerator[0].files[0]: "/etc/passwd"`) {
		t.Fatalf("exit %d, want %d naming the file and field\n%s", r.code, commands.ExitInvalid, r.err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written", out)
	}
}
