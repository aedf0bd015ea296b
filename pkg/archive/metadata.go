package archive

import (
	"fmt"
	"path"
	"strings"
)

// isToolMetadata is true for the names of the metadata directories of version control
// tools. Their content configures commands that a shell prompt, an editor or
// a user runs in a checkout without a second thought: git runs
// core.fsmonitor, core.hooksPath hooks and filter drivers from .git/config
// on "git status"; Mercurial runs [hooks] from .hg/hgrc. A package never
// needs them, so Scan leaves them out and Extract and Write refuse them
// (specs/artifact.md section 11.4). ".git" is also refused as a file (a
// worktree's "gitdir:" pointer, which could name a directory of the package).
//
// Not here, deliberately: .envrc (direnv runs it only once allowed, and
// allowing is by path and content), editor settings (.vscode/ and .idea/
// ask before trusting a folder), .gitattributes and .gitmodules (inert
// without a repository's config).
//
// It compares the path element elem with them as it would be named on any
// file system a checkout may land on: compared case-insensitively
// (macOS, Windows), with trailing dots and spaces removed (Windows drops
// them), with the code points HFS+ ignores removed, and including ".git"'s
// 8.3 short name GIT~1 — the forms git itself refuses in a tree.
func isToolMetadata(elem string) bool {
	e := strings.TrimRight(strings.Map(dropIgnorable, elem), ". ")
	if strings.EqualFold(e, "git~1") {
		return true
	}
	for _, name := range [...]string{".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul", ".fslckout", "_fossil_"} {
		if strings.EqualFold(e, name) {
			return true
		}
	}
	return false
}

// dropIgnorable removes the code points HFS+ ignores in file names.
func dropIgnorable(r rune) rune {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return -1
	}
	return r
}

// checkToolMetadata refuses a package path with a tool metadata element.
func checkToolMetadata(p string) error {
	for _, elem := range strings.Split(p, "/") {
		if isToolMetadata(elem) {
			return fmt.Errorf("%w: %q is version control metadata, which a checkout acts on by itself", ErrUnsafePath, elem)
		}
	}
	return nil
}

// bareRepository returns a directory of t that git would take for a bare
// repository — it holds a file HEAD and directories objects and refs — so
// that "git status" there reads its config (and runs core.fsmonitor),
// whatever the directory is called.
func (t *tree) bareRepository() (string, bool) {
	for key, n := range t.nodes {
		if n.dir || path.Base(key) != "head" {
			continue
		}
		dir := path.Dir(key)
		prefix := ""
		if dir != "." {
			prefix = dir + "/"
		}
		objects, ok1 := t.nodes[prefix+"objects"]
		refs, ok2 := t.nodes[prefix+"refs"]
		if ok1 && ok2 && objects.dir && refs.dir {
			return path.Dir(n.path), true
		}
	}
	return "", false
}

// checkBareRepository refuses a tree with a bare-repository lookalike.
func (t *tree) checkBareRepository() error {
	if dir, ok := t.bareRepository(); ok {
		return pathErr(dir, fmt.Errorf("%w: HEAD, objects/ and refs/ make a git repository, which a checkout acts on by itself", ErrUnsafePath))
	}
	return nil
}
