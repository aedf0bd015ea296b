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
	// Where -o is the format's alias it stays one.
	if r := run(t, nil, "init", "other", "-o", "json"); r.code != 0 || !strings.HasPrefix(strings.TrimSpace(r.out), "{") {
		t.Fatalf("init -o json: %+v", r)
	}
}
