package commands_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestExitCodeTableForce: docs/exit-codes.md's row for an existing target
// names --force only for commands that have it, and the commands it says
// never overwrite have no such flag.
func TestExitCodeTableForce(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "| 8 |") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("docs/exit-codes.md has no exit code 8 row")
	}
	withForce, without, ok := strings.Cut(row, "`--force`")
	if !ok {
		t.Fatalf("row 8 names no --force: %s", row)
	}
	verb := regexp.MustCompile("`([a-z]+)[^`]*`")
	check := func(clause string, want bool) {
		for _, m := range verb.FindAllStringSubmatch(clause, -1) {
			r := run(t, nil, m[1], "--help")
			if r.code != 0 {
				t.Fatalf("%s --help: %+v", m[1], r)
			}
			if has := strings.Contains(r.out, "--force"); has != want {
				t.Errorf("docs/exit-codes.md code 8 says %s %s --force; its help disagrees", m[1], map[bool]string{true: "takes", false: "has no"}[want])
			}
		}
	}
	check(withForce, true)
	check(without, false)
}

// TestInstallLeadsWithClone: the module is not published, so the README's
// Install section starts from a clone and offers no `go install …@latest`.
func TestInstallLeadsWithClone(t *testing.T) {
	raw, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "\n## Install\n")
	if !ok {
		t.Fatal("README has no Install section")
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	_, block, _ := strings.Cut(section, "```sh\n")
	if !strings.HasPrefix(block, "git clone ") {
		t.Errorf("the Install section does not lead with git clone:\n%s", section)
	}
	if strings.Contains(string(raw), "go install github.com/addonpack/addonpack/cmd/addonpack@") {
		t.Error("the README offers go install of an unpublished module")
	}
}
