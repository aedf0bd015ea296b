// Package testbin builds the addonpack CLI once for a test binary whose
// tests run it as a user would (docs/ runs the documents' shell blocks,
// examples/ the use cases), from TestMain.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds ./cmd/addonpack of the module whose root is moduleRoot (relative
// to the test's directory) into a temporary directory, sets *bin to its
// path, runs the tests and exits with their code; a failed build exits 1
// before any test runs. The binary is removed afterwards.
func Main(m *testing.M, moduleRoot string, bin *string) {
	os.Exit(run(m, moduleRoot, bin))
}

func run(m *testing.M, moduleRoot string, bin *string) int {
	dir, err := os.MkdirTemp("", "addonpack-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, "addonpack")
	build := exec.Command("go", "build", "-o", *bin, "./cmd/addonpack")
	build.Dir = moduleRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building addonpack:", err)
		return 1
	}
	return m.Run()
}
