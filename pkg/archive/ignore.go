package archive

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strings"
)

// IgnoreFileName is the name of the ignore file read from the package root.
const IgnoreFileName = ".addonpackignore"

// maxIgnoreFileSize bounds the ignore file Scan reads.
const maxIgnoreFileSize = 1 << 20

// ignoreRules is a parsed .addonpackignore.
//
// Syntax, one pattern per line:
//   - blank lines and lines starting with '#' are ignored; surrounding
//     white space (and a CR of CRLF endings) is trimmed;
//   - a pattern is a path.Match pattern ('*' and '?' never match '/', "**" is
//     no different from "*");
//   - a pattern without '/' matches any single path element, so it excludes
//     a file or directory of that name anywhere in the tree;
//   - a pattern with a '/' matches the full slash path relative to the root;
//     a leading '/' only anchors (it is dropped before matching);
//   - a trailing '/' restricts the pattern to directories;
//   - a leading '!' (negation) is not supported and is an error.
//
// An excluded directory excludes everything below it. The ignore file itself
// and .git directories are not subject to the patterns (the former is always
// included, the latter always skipped).
type ignoreRules struct {
	patterns []ignorePattern
}

type ignorePattern struct {
	pattern  string
	fullPath bool // match against the full path (pattern had a '/')
	dirOnly  bool
	line     int
}

// parseIgnore parses the content of an ignore file. Errors wrap
// ErrIgnoreFile and name the line.
func parseIgnore(data []byte) (*ignoreRules, error) {
	rules := &ignoreRules{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFileSize+1)
	line := 0
	for sc.Scan() {
		line++
		raw := sc.Text()
		s := strings.TrimSpace(raw)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		bad := func(why string) error {
			return fmt.Errorf("%w: line %d %q: %s", ErrIgnoreFile, line, s, why)
		}
		if strings.HasPrefix(s, "!") {
			return nil, bad("negation ('!') is not supported")
		}
		p := ignorePattern{line: line}
		if strings.HasSuffix(s, "/") {
			p.dirOnly = true
			s = strings.TrimSuffix(s, "/")
		}
		if strings.HasPrefix(s, "/") {
			p.fullPath = true
			s = strings.TrimPrefix(s, "/")
		}
		if strings.Contains(s, "/") {
			p.fullPath = true
		}
		if s == "" || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//") {
			return nil, bad("empty path element")
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, bad(err.Error())
		}
		p.pattern = s
		rules.patterns = append(rules.patterns, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: line %d: %v", ErrIgnoreFile, line+1, err)
	}
	return rules, nil
}

// match reports whether the entry at slash path rel (a directory if isDir) is
// matched by a pattern itself. It does not look at rel's parents: see
// excluded.
func (r *ignoreRules) match(rel string, isDir bool) bool {
	if r == nil {
		return false
	}
	base := path.Base(rel)
	for _, p := range r.patterns {
		if p.dirOnly && !isDir {
			continue
		}
		subject := base
		if p.fullPath {
			subject = rel
		}
		// The pattern was validated by parseIgnore, so Match cannot fail.
		if ok, _ := path.Match(p.pattern, subject); ok {
			return true
		}
	}
	return false
}

// excluded reports whether rel is left out of the package: it or one of its
// parent directories is version control metadata (isToolMetadata: ".git",
// the directory of a repository or the file of a worktree or submodule that
// points to one, ".hg", ".svn", ...), or a pattern matches. The ignore file at the root is never
// excluded.
func (r *ignoreRules) excluded(rel string, isDir bool) bool {
	if rel == IgnoreFileName && !isDir {
		return false
	}
	for _, d := range parents(rel) {
		if isToolMetadata(path.Base(d)) || r.match(d, true) {
			return true
		}
	}
	if isToolMetadata(path.Base(rel)) {
		return true
	}
	return r.match(rel, isDir)
}
