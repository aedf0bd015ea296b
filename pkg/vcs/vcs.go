// Package vcs reads the facts about a source directory's git work tree that
// builds and provenance record: the commit, its time, whether the tree is
// dirty, and the origin URL. It runs the git command; without git, or outside
// a work tree, it reports nothing and no error.
package vcs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Info describes the git state of a directory. The zero value means "not in
// a git work tree (or git is not installed)".
type Info struct {
	Commit    string    // the last commit that changed the directory
	Time      time.Time // that commit's committer time
	Dirty     bool      // uncommitted changes under the directory
	RemoteURL string    // remote.origin.url, credentials stripped; a relative local path made absolute
	Path      string    // the directory relative to the repository's root ("." for the root)
}

// Describer reports the VCS facts of a directory.
type Describer interface {
	Describe(ctx context.Context, dir string) (Info, error)
}

// Git is the Describer that runs the git command.
type Git struct {
	// Path is the git binary; "" means "git" from PATH.
	Path string
}

// Describe returns the git facts of dir, or a zero Info when dir is not in a
// work tree or git is not available.
func (g Git) Describe(ctx context.Context, dir string) (Info, error) {
	bin := g.Path
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("git"); err != nil {
			return Info{}, nil
		}
	}
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
	if inside, err := run("rev-parse", "--is-inside-work-tree"); err != nil || inside != "true" {
		return Info{}, nil
	}
	// The last commit that touched this directory, not HEAD: commits
	// elsewhere in the repository must not change an add-on's digest.
	line, err := run("log", "-1", "--format=%H %ct", "--", ".")
	if err != nil || line == "" {
		// No commit touches the directory (a new, untracked add-on, or a
		// work tree without commits): nothing to record but dirtiness.
		return Info{Dirty: true}, nil
	}
	commit, secs, ok := strings.Cut(line, " ")
	if !ok {
		return Info{}, fmt.Errorf("git log in %s: unexpected output %q", dir, line)
	}
	unix, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return Info{}, fmt.Errorf("git log in %s: bad commit time %q: %w", dir, secs, err)
	}
	status, err := run("status", "--porcelain", "--untracked-files=normal", "--", ".")
	if err != nil {
		return Info{}, err
	}
	remote, err := run("config", "--get", "remote.origin.url")
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return Info{}, err
	}
	top, err := run("rev-parse", "--show-toplevel")
	if err != nil {
		return Info{}, err
	}
	prefix, err := run("rev-parse", "--show-prefix")
	if err != nil {
		return Info{}, err
	}
	rel := strings.TrimSuffix(prefix, "/")
	if rel == "" {
		rel = "."
	}
	return Info{
		Commit:    commit,
		Time:      time.Unix(unix, 0).UTC(),
		Dirty:     status != "",
		RemoteURL: localRemote(stripCredentials(remote), top),
		Path:      rel,
	}, nil
}

// localRemote makes a relative local remote ("../upstream.git") absolute,
// against the work tree's root as git resolves it; URLs, scp-like
// "host:path" and absolute paths are returned as they are.
func localRemote(remote, top string) string {
	if remote == "" || filepath.IsAbs(remote) || strings.Contains(remote, "://") {
		return remote
	}
	if host, _, ok := strings.Cut(remote, ":"); ok && !strings.Contains(host, "/") {
		return remote // scp-like
	}
	return filepath.Join(top, remote)
}

// stripCredentials removes "user:password@" from an https remote URL so that
// secrets never reach an artifact.
func stripCredentials(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
		rest = rest[at+1:]
	}
	return scheme + "://" + rest
}
