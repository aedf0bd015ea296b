package archive

import (
	"errors"
	"strings"
	"testing"
)

func TestIgnoreParse(t *testing.T) {
	bad := []struct{ content, line string }{
		{"!keep", "line 1"},
		{"# ok\n\n  !keep  ", "line 3"},
		{"a\n[z-", "line 2"},
		{"/", "line 1"},
		{"//", "line 1"},
		{"a//b", "line 1"},
	}
	for _, tc := range bad {
		_, err := parseIgnore([]byte(tc.content))
		if !errors.Is(err, ErrIgnoreFile) || !strings.Contains(err.Error(), tc.line) {
			t.Errorf("%q: got %v, want ErrIgnoreFile naming %s", tc.content, err, tc.line)
		}
	}
}

func TestIgnoreMatch(t *testing.T) {
	rules, err := parseIgnore([]byte("*.tmp\nbuild/\n/top\nsub/x.yaml\ndocs/*.md\n\\#literal\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		dir  bool
		want bool
	}{
		{"a.tmp", false, true},
		{"deep/er/a.tmp", false, true},
		{"a.tmp/inside", false, true}, // parent dir matched
		{"build", true, true},
		{"build", false, false},
		{"x/build/y", false, true},
		{"top", false, true},
		{"x/top", false, false},
		{"sub/x.yaml", false, true},
		{"a/sub/x.yaml", false, false},
		{"docs/readme.md", false, true},
		{"docs/sub/readme.md", false, false},
		{"#literal", false, true},
		{".git", true, true},
		{".git", false, true},     // a worktree's or submodule's .git file
		{"sub/.git", false, true}, // a submodule inside the package
		{".git/config", false, true},
		{"a/.git/config", false, true},
		{".gitignore", false, false},
		{".addonpackignore", false, false},
		{"keep.yaml", false, false},
	}
	for _, tc := range tests {
		if got := rules.excluded(tc.path, tc.dir); got != tc.want {
			t.Errorf("excluded(%q, dir=%v) = %v, want %v", tc.path, tc.dir, got, tc.want)
		}
	}
	var none *ignoreRules
	if none.excluded("a", false) || !none.excluded(".git", true) {
		t.Error("nil rules")
	}
}

func FuzzIgnorePatterns(f *testing.F) {
	f.Add("*.tmp\nbuild/\n# c\n/top\n", "build/x.tmp", true)
	f.Add("!x", "x", false)
	f.Add("[a-\n", "a", false)
	f.Add("a/**/b\n\\\n", "a/x/b", false)
	f.Fuzz(func(t *testing.T, content, p string, isDir bool) {
		rules, err := parseIgnore([]byte(content))
		if err != nil {
			if !errors.Is(err, ErrIgnoreFile) {
				t.Fatalf("error %v does not wrap ErrIgnoreFile", err)
			}
			return
		}
		for _, line := range strings.Split(content, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "!") {
				t.Fatalf("negation %q accepted", line)
			}
		}
		_ = rules.excluded(p, isDir) // must not panic
		if rules.excluded(IgnoreFileName, false) {
			t.Fatal("the ignore file itself was excluded")
		}
	})
}
