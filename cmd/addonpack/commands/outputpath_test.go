package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// TestOutputIsAPath: on commands whose -o names what they write, a format
// name there is refused with the --format hint and nothing is written; the
// same name written as a path, or a path of that name that exists, is taken.
func TestOutputIsAPath(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	if r := run(t, nil, "init", "hello"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	for _, args := range [][]string{
		{"build", "./hello", "-o", "json"},
		{"render", "./hello", "-o", "json"},
		{"render", "./hello", "--format", "kustomize", "-o", "kustomize"},
		{"pull", "localhost:5000/addons/hello:0.1.0", "-o", "yaml", "--insecure-skip-verify"},
		{"config", "convert", "./hello", "--values", "./hello/config/defaults.yaml", "-o", "json"},
	} {
		r := run(t, nil, args...)
		name := args[len(args)-1]
		if args[0] == "pull" {
			name = "yaml"
		}
		if r.code != commands.ExitUsage || !strings.Contains(r.err, "use --format "+name) || !strings.Contains(r.err, "-o ./"+name) {
			t.Errorf("%v: want a usage error with the --format hint: %+v", args, r)
		}
		if _, err := os.Lstat(filepath.Join(work, name)); err == nil {
			t.Errorf("%v wrote %s", args, name)
		}
	}
	if r := run(t, nil, "build", "./hello", "-o", "./json"); r.code != 0 {
		t.Fatalf("-o ./json: %+v", r)
	}
	if fi, err := os.Stat(filepath.Join(work, "json", "oci-layout")); err != nil || fi.IsDir() {
		t.Fatalf("-o ./json wrote no layout: %v", err)
	}
	if r := run(t, nil, "render", "./hello", "--format", "kustomize", "-o", "json", "--force"); r.code != 0 {
		t.Fatalf("-o json naming an existing directory: %+v", r)
	}
	// Where -o was the format's alias it still is one, deprecated: the data
	// stays clean JSON on stdout and the notice goes to stderr.
	r := run(t, nil, "init", "other", "-o", "json")
	if r.code != 0 || !strings.HasPrefix(strings.TrimSpace(r.out), "{") {
		t.Fatalf("init -o json: %+v", r)
	}
	if !strings.Contains(r.err, "deprecated") || !strings.Contains(r.err, "--format json") || strings.Contains(r.out, "deprecated") {
		t.Fatalf("init -o json: no deprecation notice on stderr (or one on stdout): %+v", r)
	}
	// The help shows one rule: the alias is not listed.
	if h := run(t, nil, "verify", "--help"); strings.Contains(h.out, "-o, --output") {
		t.Fatalf("verify --help still lists -o as the format:\n%s", h.out)
	}
	if r := run(t, nil, "init", "third", "--format", "json"); r.code != 0 || strings.Contains(r.err, "deprecated") {
		t.Fatalf("init --format json: %+v", r)
	}
}
