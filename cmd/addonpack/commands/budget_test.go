package commands_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cmdBudget is how many non-test lines cmd/addonpack may hold (house rule:
// commands map flags to options and call one pkg function; logic lives in
// pkg/). A new verb that does not fit moves logic out first.
const cmdBudget = 4000

// TestCmdLineBudget counts the non-test lines of cmd/addonpack and
// cmd/addonpack/commands, as `wc -l` does, and holds them to cmdBudget.
func TestCmdLineBudget(t *testing.T) {
	var files []string
	for _, dir := range []string{"..", "."} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	total, counted := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += bytes.Count(b, []byte("\n"))
		counted++
	}
	if counted < 10 {
		t.Fatalf("counted only %d files: run from cmd/addonpack/commands", counted)
	}
	t.Logf("cmd/addonpack: %d non-test lines in %d files (budget %d)", total, counted, cmdBudget)
	if total > cmdBudget {
		t.Errorf("cmd/addonpack holds %d non-test lines, over the budget of %d: move logic into pkg/ (an options type's Validate, a result's WriteText, a pkg function the verb calls)", total, cmdBudget)
	}
}
