package startgc

import (
	"os"
	"runtime/debug"
	"strconv"
	"testing"
)

// TestOffUntilRestore checks what the collector's setting is while the
// test binary runs its tests (after init) and after Restore: off, then
// the default, or the user's GOGC throughout.
func TestOffUntilRestore(t *testing.T) {
	env := os.Getenv("GOGC")
	wantInit, wantRestored := -1, 100
	switch n, err := strconv.Atoi(env); {
	case env == "off":
		wantInit, wantRestored = -1, -1
	case err == nil:
		wantInit, wantRestored = n, n
	case env != "":
		wantInit, wantRestored = 100, 100 // the runtime ignores a GOGC it cannot read
	}
	got := debug.SetGCPercent(-1)
	debug.SetGCPercent(got)
	if got != wantInit {
		t.Errorf("after init (GOGC=%q): GC percent %d, want %d", env, got, wantInit)
	}
	Restore()
	got = debug.SetGCPercent(100)
	defer debug.SetGCPercent(got)
	if got != wantRestored {
		t.Errorf("after Restore (GOGC=%q): GC percent %d, want %d", env, got, wantRestored)
	}
}
