package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSweepStale: a new staging directory removes those of the same target
// whose owner is gone (killed mid-pull), and leaves live ones, kept ones,
// ones without a lock and other targets' alone.
func TestSweepStale(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "out")
	stage := func() *Dir {
		t.Helper()
		s, err := NewDir(target)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	killed := stage()
	killed.lock.Close() // what the kernel does when the process dies
	live := stage()
	defer live.Cleanup()
	kept := stage()
	markKept(kept.root)
	kept.lock.Close()
	unlocked := filepath.Join(parent, ".out.addonpack-old")
	other := filepath.Join(parent, ".elsewhere.addonpack-1")
	for _, d := range []string{unlocked, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if f, err := lock(other); err != nil {
		t.Fatal(err)
	} else {
		f.Close() // stale, but another target's
	}

	next := stage()
	defer next.Cleanup()
	exists := func(d string) bool { _, err := os.Lstat(d); return err == nil }
	if exists(killed.root) {
		t.Errorf("the killed pull's staging directory %s is still there", killed.root)
	}
	for _, d := range []string{live.root, kept.root, unlocked, other, next.root} {
		if !exists(d) {
			t.Errorf("%s was removed", d)
		}
	}
}
