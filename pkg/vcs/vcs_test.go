package vcs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestDescribeOutsideWorkTree(t *testing.T) {
	info, err := Git{}.Describe(context.Background(), t.TempDir())
	if err != nil || info != (Info{}) {
		t.Fatalf("Describe(temp dir) = %+v, %v; want zero Info", info, err)
	}
}

func TestDescribeWithoutGit(t *testing.T) {
	info, err := Git{Path: filepath.Join(t.TempDir(), "no-git")}.Describe(context.Background(), t.TempDir())
	if err != nil || info != (Info{}) {
		// An explicit missing binary fails to start: that is reported as not-a-work-tree.
		t.Fatalf("Describe with a missing git = %+v, %v", info, err)
	}
}

func TestDescribeWorkTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required by this test and is not on PATH")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2024-05-06T07:08:09Z", "GIT_AUTHOR_DATE=2024-05-06T07:08:09Z",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("remote", "add", "origin", "https://user:secret@example.com/org/repo.git")
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-qm", "first")

	info, err := Git{}.Describe(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Commit) != 40 || !info.Time.Equal(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)) || info.Dirty {
		t.Fatalf("clean tree: %+v", info)
	}
	if info.RemoteURL != "https://example.com/org/repo.git" {
		t.Fatalf("remote URL keeps credentials or is wrong: %q", info.RemoteURL)
	}
	// A later commit elsewhere in the repository does not change the facts
	// of a directory it did not touch.
	sub := filepath.Join(dir, "addon")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "addon.yaml"), []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-qm", "addon")
	first, err := Git{}.Describe(context.Background(), sub)
	if err != nil || first.Dirty || first.Commit == info.Commit {
		t.Fatalf("addon dir: %+v, %v", first, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-qm", "unrelated")
	if again, err := (Git{}).Describe(context.Background(), sub); err != nil || again != first {
		t.Fatalf("an unrelated commit changed the addon dir's facts: %+v vs %+v", again, first)
	}
	untracked := filepath.Join(dir, "new")
	if err := os.MkdirAll(untracked, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(untracked, "f"), []byte("x"), 0o644)
	if info, err := (Git{}).Describe(context.Background(), untracked); err != nil || info.Commit != "" || !info.Dirty {
		t.Fatalf("untracked dir: %+v, %v", info, err)
	}

	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("a: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if info, err = (Git{}).Describe(context.Background(), dir); err != nil || !info.Dirty {
		t.Fatalf("modified tree not dirty: %+v, %v", info, err)
	}
}

// TestDescribePathAndLocalRemote: the built directory is reported relative
// to the repository root, and a relative local origin is made absolute.
func TestDescribePathAndLocalRemote(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("remote", "add", "origin", "../upstream.git")
	sub := filepath.Join(dir, "addons", "hello")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "a.yaml"), []byte("a: 1\n"), 0o644)
	git("add", ".")
	git("commit", "-qm", "first")
	info, err := Git{}.Describe(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	top, _ := filepath.EvalSymlinks(dir)
	if info.Path != "addons/hello" || info.RemoteURL != filepath.Join(filepath.Dir(top), "upstream.git") {
		t.Fatalf("%+v (root %s)", info, top)
	}
	if root, _ := (Git{}).Describe(context.Background(), dir); root.Path != "." {
		t.Fatalf("the root: %+v", root)
	}
}
