package commands

import (
	"runtime/debug"
	"testing"
)

// TestLessGCRestores: a pull collects less often while it runs, within a
// soft memory limit, and the process settings are restored afterwards (the
// in-process CLI runs many commands in one process).
func TestLessGCRestores(t *testing.T) {
	gc, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer debug.SetGCPercent(gc)
	restore := lessGC()
	if got := debug.SetGCPercent(400); got != 400 {
		t.Errorf("GC percent during a pull = %d, want 400", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 96<<20 {
		t.Errorf("memory limit during a pull = %d, want %d", got, 96<<20)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent after = %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(limit); got != limit {
		t.Errorf("memory limit after = %d, want %d", got, limit)
	}
}
