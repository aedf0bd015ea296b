package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestReferenceOrPath: one rule for every command that takes either. A
// directory laid out like a reference (in any spelling of its host) is
// refused as ambiguous, naming both readings — it never stands in for the
// verified artifact, and the reference is not taken behind the user's back
// either; written as a path it is the directory. A bare name that exists is
// that path; a path says what is wrong with it; a reference without a
// registry part is a usage error, not a DNS lookup.
func TestReferenceOrPath(t *testing.T) {
	reg := testregistry.New(t)
	work := t.TempDir()
	t.Chdir(work)
	env := map[string]string{"HOME": work, "COSIGN_PASSWORD": "shadow"}
	run(t, env, "keygen", "--output-key-prefix", "release")
	run(t, env, "init", "hello")
	_, port, _ := strings.Cut(reg.Host(), ":")
	if r := run(t, env, "push", "hello", "localhost:"+port+"/addons/hello:0.1.0", "--key", "release.key"); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	// The shadows: source directories of another add-on, named like the reference.
	for _, host := range []string{"LOCALHOST:" + port, "localhost:" + port, "Localhost:" + port} {
		shadow := filepath.Join(host, "addons", "hello:0.1.0")
		if r := run(t, env, "init", shadow, "--name", "evil"); r.code != 0 {
			t.Fatalf("init: %+v", r)
		}
		ref := host + "/addons/hello:0.1.0"
		for _, args := range [][]string{
			{"render", ref},
			{"config", "defaults", ref},
			{"config", "schema", ref},
			{"render", ref, "--key", "release.pub"},
			{"pull", ref, "-o", "out", "--key", "release.pub"},
		} {
			r := run(t, env, args...)
			if r.code != commands.ExitUsage || !strings.Contains(r.err, "both a registry reference and a local path") || !strings.Contains(r.err, "./"+ref) ||
				strings.Contains(r.out, "evil") || strings.Contains(r.out, "hello") {
				t.Fatalf("%v: want a usage error naming both readings, and nothing rendered: %+v", args, r)
			}
		}
		if r := run(t, env, "render", "./"+ref); r.code != 0 || !strings.Contains(r.out, "name: evil") {
			t.Fatalf("the explicit path: %+v", r)
		}
		os.RemoveAll(host)
		if r := run(t, env, "render", ref, "--key", "release.pub"); r.code != 0 || strings.Contains(r.out, "evil") || !strings.Contains(r.out, "hello") {
			t.Fatalf("the reference, once the directory is gone: %+v", r)
		}
	}

	// A bare name that exists is that path, as kubectl apply -k DIR takes it.
	for _, args := range [][]string{{"render", "hello"}, {"config", "defaults", "hello"}, {"diff", "hello", "./hello", "--exit-code"}} {
		if r := run(t, env, args...); r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	if r := run(t, env, "inspect", "hello"); r.code != commands.ExitInvalid || !strings.Contains(r.err, "add-on source directory") {
		t.Fatalf("inspect of a bare source directory name: %+v", r)
	}

	os.Mkdir("empty", 0o755)
	os.WriteFile("notes.txt", []byte("not a tarball"), 0o644)
	consumers := [][]string{
		{"render", "ARG", "--key", "release.pub"},
		{"config", "defaults", "ARG", "--key", "release.pub"},
		{"config", "schema", "ARG", "--key", "release.pub"},
		{"inspect", "ARG"},
		{"pull", "ARG", "-o", "out", "--key", "release.pub"},
		{"diff", "ARG", "./hello"},
		{"verify", "ARG", "--key", "release.pub"},
		{"copy", "ARG", reg.Host() + "/copy/hello", "--key", "release.pub"},
		{"sign", "ARG", "--key", "release.key"},
		{"push", "./hello", "ARG"},
	}
	refOnly := map[string]bool{"verify": true, "copy": true, "sign": true, "push": true}
	tests := []struct {
		name, arg string
		code      int
		want      string
	}{
		{"missing path", "./hellp", commands.ExitNotFound, "./hellp"},
		{"missing absolute path", filepath.Join(work, "nope"), commands.ExitNotFound, "nope"},
		{"missing layout tag", "./nope.tar:0.1.0", commands.ExitNotFound, "nope.tar"},
		{"not an add-on", "./empty", commands.ExitInvalid, "neither addon.yaml nor oci-layout"},
		{"no registry part", "addons/hello:0.1.0", commands.ExitUsage, "no registry part"},
		{"a bare name that does not exist", "helo", commands.ExitUsage, "./helo"},
		{"a single-label host", "registry/addons/hello:0.1.0", commands.ExitUsage, "no registry part"},
	}
	for _, tt := range tests {
		for _, c := range consumers {
			args := make([]string, len(c))
			for i, a := range c {
				if a == "ARG" {
					a = tt.arg
				}
				args[i] = a
			}
			t.Run(tt.name+"/"+c[0], func(t *testing.T) {
				r := run(t, env, args...)
				code, want := tt.code, tt.want
				if refOnly[c[0]] && code != commands.ExitUsage {
					code, want = commands.ExitUsage, "a path, not a registry reference"
				}
				if r.code != code || !strings.Contains(r.err, want) {
					t.Fatalf("%v: exit %d, want %d naming %q\n%s", args, r.code, code, want, r.err)
				}
				if strings.Contains(r.err, "--key") {
					t.Fatalf("%v asks for trust flags before saying what is wrong with the argument:\n%s", args, r.err)
				}
			})
		}
	}
	if r := run(t, env, "inspect", "./notes.txt"); r.code != commands.ExitInvalid || !strings.Contains(r.err, "notes.txt") {
		t.Fatalf("inspect of a file that is no layout: %+v", r)
	}
	if r := run(t, env, "inspect", "./hello"); r.code != commands.ExitInvalid || !strings.Contains(r.err, "add-on source directory") {
		t.Fatalf("inspect of a source directory: %+v", r)
	}
}
