package examples_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------
// The README "Use cases" section

// TestUseCasesREADMESection: every command the top-level README's "Use cases"
// section shows is one the use-case tests run: a line of an executed example
// README block or of the workflow's run: steps.
func TestUseCasesREADMESection(t *testing.T) {
	section := ""
	if b, err := os.ReadFile("../README.md"); err == nil {
		if _, rest, ok := strings.Cut(string(b), "\n## Use cases\n"); ok {
			section, _, _ = strings.Cut(rest, "\n## ")
		}
	}
	if section == "" {
		t.Fatal(`README.md has no "## Use cases" section: the documented use cases must be there and match what these tests run`)
	}
	var runnable []string
	for _, md := range []string{"policies/README.md", "install-job/README.md"} {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for _, blk := range docBlocks(t, string(b)) {
			if blk.lang == "sh" && (blk.marker == "" || strings.HasPrefix(blk.marker, jobScriptReadme)) {
				runnable = append(runnable, strings.Split(blk.text, "\n")...)
			}
		}
	}
	_, raw := loadWorkflow(t)
	runnable = append(runnable, strings.Split(raw, "\n")...)
	for i := range runnable {
		runnable[i] = strings.TrimSpace(runnable[i])
	}
	checked := 0
	for _, blk := range docBlocks(t, section) {
		// sh: a command a test runs; yaml: lines of the workflow the test runs.
		if blk.lang != "sh" && blk.lang != "yaml" {
			t.Errorf("Use cases: a %q block; want sh or yaml", blk.lang)
		}
		for _, l := range strings.Split(blk.text, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			checked++
			if !slices.Contains(runnable, l) {
				t.Errorf("README Use cases shows %q, which no use-case test runs", l)
			}
		}
	}
	if checked == 0 {
		t.Error("the Use cases section shows no commands")
	}
}
