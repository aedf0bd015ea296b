package archive

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestExtractRefusesToolMetadata: a layer planting version control metadata
// (which "git status" or "hg status" in the output would act on: hooks,
// core.fsmonitor) is refused in every spelling a file system may map to it,
// and so is a directory git would take for a bare repository.
func TestExtractRefusesToolMetadata(t *testing.T) {
	cm := reg("kustomization.yaml", "resources: []\n")
	tests := []struct {
		name    string
		entries []entry
		path    string
	}{
		{".git/config", []entry{cm, reg(".git/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n")}, ".git"},
		{".git directory entry", []entry{dirEntry(".git/"), reg(".git/HEAD", "ref: refs/heads/main\n")}, ".git"},
		{"nested .git", []entry{cm, reg("deploy/.git/hooks/post-checkout", "#!/bin/sh\n")}, "deploy/.git"},
		{".git file (gitdir pointer)", []entry{cm, reg(".git", "gitdir: evil\n")}, ".git"},
		{"upper case", []entry{cm, reg(".GIT/config", "x")}, ".GIT"},
		{"trailing dot", []entry{cm, reg(".git./config", "x")}, ".git."},
		{"trailing space", []entry{cm, reg(".git /config", "x")}, ".git "},
		{"8.3 short name", []entry{cm, reg("GIT~1/config", "x")}, "GIT~1"},
		{"HFS+ ignorable code point", []entry{cm, reg(".g\u200cit/config", "x")}, `.g\u200cit`},
		{"mercurial", []entry{cm, reg(".hg/hgrc", "[hooks]\nupdate = touch /tmp/pwned\n")}, ".hg"},
		{"subversion", []entry{cm, reg(".svn/wc.db", "x")}, ".svn"},
		{"bazaar", []entry{cm, reg(".bzr/branch/branch.conf", "x")}, ".bzr"},
		{"jujutsu", []entry{cm, reg(".jj/repo/store/x", "x")}, ".jj"},
		{"bare repository at the root", []entry{cm, reg("HEAD", "ref: refs/heads/main\n"), reg("config", "[core]\n\tfsmonitor = x\n"), reg("objects/info/x", ""), reg("refs/heads/main", "0\n")}, "HEAD"},
		{"bare repository in a directory", []entry{cm, reg("x/Head", "ref: refs/heads/main\n"), dirEntry("x/objects/"), dirEntry("x/Refs/")}, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := extractSandbox(t, gz(t, rawTar(t, tt.entries)), DefaultLimits())
			assertErr(t, err, ErrUnsafePath, tt.path)
		})
	}
}

// TestToolMetadataLookalikesAccepted: names that only look like metadata
// are ordinary package files.
func TestToolMetadataLookalikesAccepted(t *testing.T) {
	entries := []entry{
		reg(".gitignore", "x"), reg(".gitattributes", "x"), reg(".gitmodules", "x"), reg(".github/workflows/ci.yaml", "x"),
		reg("git/config", "x"), reg("docs/.git-blame-ignore-revs", "x"), reg(".envrc", "x"), reg(".hgignore", "x"),
		reg("HEAD", "x"), reg("objects/x", "x"), // no refs/: not a repository
	}
	if _, _, err := extractSandbox(t, gz(t, rawTar(t, entries)), DefaultLimits()); err != nil {
		t.Fatal(err)
	}
}

// TestScanSkipsToolMetadata: the builder leaves version control metadata
// out in every spelling, and refuses a bare-repository lookalike, so it
// never packs what consumers refuse.
func TestScanSkipsToolMetadata(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]tfile{
		"kustomization.yaml": {content: "resources: []\n"},
		".git":               {content: "gitdir: ../.git/worktrees/x\n"},
		".GIT/config":        {content: "x"},
		"sub/.hg/hgrc":       {content: "x"},
		".svn/entries":       {content: "x"},
		".gitignore":         {content: "x"},
	}, nil, 0o644)
	files, err := Scan(src, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if want := []string{".gitignore", "kustomization.yaml"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Scan = %q, want %q", got, want)
	}

	writeTree(t, src, map[string]tfile{"repo/HEAD": {content: "ref: refs/heads/main\n"}, "repo/objects/x": {}, "repo/refs/heads/main": {}}, nil, 0o644)
	_, err = Scan(src, DefaultLimits())
	assertErr(t, err, ErrUnsafePath, "repo")

	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(nil)), nil }
	err = Write(t.Context(), io.Discard, []File{{Path: "a/.git/config", Open: open}})
	assertErr(t, err, ErrUnsafePath, "a/.git/config")
	if _, err := os.Stat(filepath.Join(src, ".git")); err != nil {
		t.Fatal(err) // the source is left alone
	}
}
