// Package docs_test runs every shell block of README.md and docs/*.md as
// written: each document's blocks in order, in one bash session, in a
// directory of its own, with the addonpack binary built from this
// repository. A block that cannot run here (it clones from GitHub, needs a
// cluster, a Sigstore or an OIDC token) is marked, on the line before its
// fence, <!-- not-run: REASON -->, and the reason names what runs it
// instead.
package docs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// addonpackBin is the CLI built from this repository once per test binary.
var addonpackBin string

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "addonpack-docs-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		addonpackBin = filepath.Join(dir, "addonpack")
		build := exec.Command("go", "build", "-o", addonpackBin, "./cmd/addonpack")
		build.Dir = ".."
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building addonpack:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}
