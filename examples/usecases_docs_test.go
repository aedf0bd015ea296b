package examples_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------
// Running a README's commands

type docBlock struct {
	line   int    // of the first command line
	marker string // the HTML comment on the line before the fence, if any
	lang   string
	text   string
}

// docBlocks returns the fenced code blocks of md.
func docBlocks(t *testing.T, md string) []docBlock {
	t.Helper()
	var (
		blocks []docBlock
		cur    *docBlock
		prev   string
	)
	for i, l := range strings.Split(md, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &docBlock{line: i + 2, lang: strings.TrimPrefix(l, "```")}
			if strings.HasPrefix(prev, "<!--") {
				cur.marker = prev
			}
		case cur != nil && l == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += l + "\n"
		}
		if strings.TrimSpace(l) != "" {
			prev = strings.TrimSpace(l)
		}
	}
	if cur != nil {
		t.Fatal("unterminated code block")
	}
	return blocks
}

type docResult struct {
	line           int
	command        string
	want           int
	stdout, stderr string
}

var wantExit = regexp.MustCompile(`#\s*exit (\d+)\b`)

// runDocCommands runs the unmarked sh blocks of md in one bash session in
// dir, each command exactly as written, checking each command's exit code:
// the trailing "# exit N" comment, else 0. Blocks marked with an HTML comment
// are not run. env adds to a clean environment (HOME in dir, the built
// addonpack on PATH).
func runDocCommands(t *testing.T, md, dir string, env []string) []docResult {
	t.Helper()
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	logDir := t.TempDir()
	var (
		script  strings.Builder
		results []docResult
	)
	script.WriteString("set -o pipefail\n")
	for _, blk := range docBlocks(t, string(b)) {
		if blk.lang != "sh" || blk.marker != "" {
			continue
		}
		lines := strings.Split(strings.TrimRight(blk.text, "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			if s := strings.TrimSpace(lines[i]); s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			start := i
			for strings.HasSuffix(lines[i], "\\") && i+1 < len(lines) {
				i++
			}
			command := strings.Join(lines[start:i+1], "\n")
			want := 0
			if m := wantExit.FindStringSubmatch(lines[i]); m != nil {
				want, _ = strconv.Atoi(m[1])
			}
			n := len(results)
			results = append(results, docResult{line: blk.line + start, command: command, want: want})
			fmt.Fprintf(&script, "{\n%s\n} >%q 2>%q\nrc=$?\nif [ $rc -ne %d ]; then echo \"README command %d: exit $rc, want %d\" >&2; exit 100; fi\n",
				command, filepath.Join(logDir, fmt.Sprintf("%d.out", n)), filepath.Join(logDir, fmt.Sprintf("%d.err", n)), want, n, want)
		}
	}
	if len(results) == 0 {
		t.Fatalf("%s: no commands", md)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append([]string{
		"HOME=" + home, "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"PATH=" + filepath.Dir(addonpackBin) + string(os.PathListSeparator) + systemPath(),
	}, env...)
	out, err := cmd.CombinedOutput()
	for i := range results {
		o, _ := os.ReadFile(filepath.Join(logDir, fmt.Sprintf("%d.out", i)))
		e, _ := os.ReadFile(filepath.Join(logDir, fmt.Sprintf("%d.err", i)))
		results[i].stdout, results[i].stderr = string(o), string(e)
	}
	if err != nil {
		var failed []string
		for i, r := range results {
			failed = append(failed, fmt.Sprintf("--- %d (%s line %d, want exit %d): %s\nstdout: %s\nstderr: %s", i, md, r.line, r.want, r.command, r.stdout, r.stderr))
		}
		t.Fatalf("%s: %v\n%s\n%s", md, err, out, strings.Join(failed, "\n"))
	}
	return results
}
