package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// TestDirectoryCannotShadowReference: a directory laid out like a registry
// reference (say, committed to a pull request) is not rendered in place of
// the verified artifact; written as a path, it is the user's own directory.
func TestDirectoryCannotShadowReference(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	shadow := filepath.Join("registry.example.com", "addons", "hello:0.1.0")
	if r := run(t, nil, "init", shadow, "--name", "hello"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	ref := "registry.example.com/addons/hello:0.1.0"
	for _, args := range [][]string{
		{"render", ref, "--key", "k.pub"},
		{"config", "defaults", ref, "--key", "k.pub"},
		{"config", "schema", ref, "--key", "k.pub"},
	} {
		r := run(t, nil, args...)
		if r.code != commands.ExitUsage || !strings.Contains(r.err, "write ./"+ref) {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	if r := run(t, nil, "render", "./"+ref); r.code != 0 || !strings.Contains(r.out, "kind: Deployment") {
		t.Fatalf("the explicit path: %+v", r)
	}
	if _, err := os.Stat(shadow); err != nil {
		t.Fatal(err)
	}
}
