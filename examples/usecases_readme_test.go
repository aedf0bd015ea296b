package examples_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------
// docs/use-cases.md

// TestUseCasesREADMESection: every command docs/use-cases.md shows is one the
// use-case tests run: a line of an executed example README block or of the
// workflow's run: steps.
func TestUseCasesREADMESection(t *testing.T) {
	b, err := os.ReadFile("../docs/use-cases.md")
	if err != nil {
		t.Fatalf("docs/use-cases.md: the documented use cases must be there and match what these tests run: %v", err)
	}
	section := string(b)
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
			t.Errorf("docs/use-cases.md: a %q block; want sh or yaml", blk.lang)
		}
		for _, l := range strings.Split(blk.text, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			checked++
			if !slices.Contains(runnable, l) {
				t.Errorf("docs/use-cases.md shows %q, which no use-case test runs", l)
			}
		}
	}
	if checked == 0 {
		t.Error("docs/use-cases.md shows no commands")
	}
}
