package archive

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func scanPaths(t *testing.T, dir string) []string {
	t.Helper()
	files, err := Scan(dir, DefaultLimits())
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func TestScanSelects(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]tfile{
		".addonpackignore":         {content: "# comment\n\n*.tmp\nbuild/\n/top.txt\nsub/only-here.yaml\n  spaced.md  \r\n"},
		"a.yaml":                   {content: "a"},
		"x.tmp":                    {content: "ignored anywhere"},
		"sub/y.tmp":                {content: "ignored anywhere"},
		"build/out.yaml":           {content: "dir-only pattern"},
		"sub/build/out.yaml":       {content: "dir-only pattern, any depth"},
		"sub/build.yaml":           {content: "kept"},
		"build.d/keep":             {content: "kept"},
		"top.txt":                  {content: "anchored: ignored"},
		"sub/top.txt":              {content: "anchored: kept"},
		"sub/only-here.yaml":       {content: "full path: ignored"},
		"other/sub/only-here.yaml": {content: "full path: kept"},
		"spaced.md":                {content: "trimmed pattern: ignored"},
		".git/config":              {content: "secret"},
		"sub/.git/HEAD":            {content: "nested .git"},
		"z/target.sh":              {content: "#!/bin/sh\n", exec: true},
	}, nil, 0o644)
	// A file named like a dir-only pattern is kept.
	writeTree(t, dir, map[string]tfile{"sub/deeper/build": {content: "file named build"}}, nil, 0o644)
	// An empty directory is omitted.
	if err := os.MkdirAll(filepath.Join(dir, "empty/nested"), 0o755); err != nil {
		t.Fatal(err)
	}
	// In-tree symlink to an executable file: stored as a regular file.
	if err := os.Symlink("../z/target.sh", filepath.Join(dir, "sub", "link.sh")); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(scanPaths(t, dir), " ")
	want := ".addonpackignore a.yaml build.d/keep other/sub/only-here.yaml sub/build.yaml sub/deeper/build sub/link.sh sub/top.txt z/target.sh"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}

	files, _ := Scan(dir, Limits{})
	for _, f := range files {
		if f.Path != "sub/link.sh" {
			continue
		}
		if !f.Exec || f.Size != int64(len("#!/bin/sh\n")) {
			t.Fatalf("symlinked file: %+v", f)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if string(data) != "#!/bin/sh\n" {
			t.Fatalf("content %q", data)
		}
	}
}

func TestScanRootSymlink(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]tfile{"a.yaml": {content: "a"}}, nil, 0o644)
	link := filepath.Join(t.TempDir(), "root")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(scanPaths(t, link), " "); got != "a.yaml" {
		t.Fatalf("got %s", got)
	}
}

func TestScanRefuses(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string)
		limits Limits
		want   error
		path   string
	}{
		{name: "symlink escaping", want: ErrUnsafePath, path: "esc.yaml", setup: func(t *testing.T, dir string) {
			outside := filepath.Join(t.TempDir(), "outside.yaml")
			os.WriteFile(outside, []byte("x"), 0o644)
			must(t, os.Symlink(outside, filepath.Join(dir, "esc.yaml")))
		}},
		{name: "relative symlink escaping", want: ErrUnsafePath, path: "sub/esc", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(filepath.Dir(dir), "sibling-file"), []byte("x"), 0o644)
			must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
			must(t, os.Symlink("../../sibling-file", filepath.Join(dir, "sub", "esc")))
		}},
		{name: "dangling symlink", want: ErrEntryType, path: "dangling", setup: func(t *testing.T, dir string) {
			must(t, os.Symlink("nowhere", filepath.Join(dir, "dangling")))
		}},
		{name: "symlink to dir", want: ErrEntryType, path: "dirlink", setup: func(t *testing.T, dir string) {
			must(t, os.MkdirAll(filepath.Join(dir, "d"), 0o755))
			os.WriteFile(filepath.Join(dir, "d", "f"), []byte("x"), 0o644)
			must(t, os.Symlink("d", filepath.Join(dir, "dirlink")))
		}},
		{name: "symlink into .git", want: ErrUnsafePath, path: "cfg", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{".git/config": {content: "token"}}, nil, 0o644)
			must(t, os.Symlink(".git/config", filepath.Join(dir, "cfg")))
		}},
		{name: "symlink to ignored file", want: ErrUnsafePath, path: "cfg", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{".addonpackignore": {content: "*.secret\n"}, "x.secret": {content: "s"}}, nil, 0o644)
			must(t, os.Symlink("x.secret", filepath.Join(dir, "cfg")))
		}},
		{name: "fifo", want: ErrEntryType, path: "sub/pipe", setup: func(t *testing.T, dir string) {
			must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
			must(t, syscall.Mkfifo(filepath.Join(dir, "sub", "pipe"), 0o644))
		}},
		{name: "negation", want: ErrIgnoreFile, path: "line 2", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{".addonpackignore": {content: "*.tmp\n!keep.tmp\n"}}, nil, 0o644)
		}},
		{name: "bad pattern", want: ErrIgnoreFile, path: ".addonpackignore", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{".addonpackignore": {content: "[a-\n"}}, nil, 0o644)
		}},
		{name: "backslash name", want: ErrUnsafePath, path: `a\b`, setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{`a\b`: {content: "x"}}, nil, 0o644)
		}},
		{name: "case collision", want: ErrDuplicate, path: "readme.md", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{"README.md": {}, "readme.md": {}}, nil, 0o644)
		}},
		{name: "too many entries", limits: Limits{MaxEntries: 3}, want: ErrLimit, path: "d/c", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{"a": {}, "b": {}, "d/c": {}}, nil, 0o644)
		}},
		{name: "file too big", limits: Limits{MaxFileSize: 4}, want: ErrLimit, path: "big", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{"big": {content: "12345"}}, nil, 0o644)
		}},
		{name: "total too big", limits: Limits{MaxTotalSize: 8}, want: ErrLimit, path: "b", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{"a": {content: "12345"}, "b": {content: "12345"}}, nil, 0o644)
		}},
		{name: "path too long", limits: Limits{MaxPathLength: 10}, want: ErrLimit, path: "abcdef/ghijk", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{"abcdef/ghijk": {}}, nil, 0o644)
		}},
		{name: "too deep", limits: Limits{MaxDepth: 3}, want: ErrLimit, path: "a/b/c/d", setup: func(t *testing.T, dir string) {
			writeTree(t, dir, map[string]tfile{"a/b/c/d": {}}, nil, 0o644)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "pkg")
			must(t, os.Mkdir(dir, 0o755))
			tc.setup(t, dir)
			files, err := Scan(dir, tc.limits)
			assertErr(t, err, tc.want, tc.path)
			if files != nil {
				t.Fatalf("files returned with an error: %v", files)
			}
		})
	}
}

func TestScanIgnoredSpecialFilesAreSkipped(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]tfile{".addonpackignore": {content: "*.sock\ntmp/\n"}, "a": {}}, nil, 0o644)
	must(t, syscall.Mkfifo(filepath.Join(dir, "x.sock"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "tmp"), 0o755))
	must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "tmp", "escape")))
	if got := strings.Join(scanPaths(t, dir), " "); got != ".addonpackignore a" {
		t.Fatalf("got %s", got)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
