package render

import (
	"math"
	"runtime/debug"
	"testing"
)

// currentGC reads the collector's settings without changing them.
func currentGC() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// TestGCTuning: builds raise GOGC and set a memory limit while any of them
// runs, nested builds included, and restore both when the last ends; a
// GOGC or a memory limit set by the user is left as it is.
func TestGCTuning(t *testing.T) {
	p0, l0 := currentGC()
	t.Cleanup(func() { debug.SetGCPercent(p0); debug.SetMemoryLimit(l0) })

	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
	var g gcTuning
	end1 := g.during()
	end2 := g.during()
	if p, l := currentGC(); p != buildGCPercent || l != buildMemoryLimit {
		t.Fatalf("during builds: GOGC %d, limit %d; want %d, %d", p, l, buildGCPercent, buildMemoryLimit)
	}
	end1()
	if p, _ := currentGC(); p != buildGCPercent {
		t.Fatalf("one build still running: GOGC %d, want %d", p, buildGCPercent)
	}
	end2()
	if p, l := currentGC(); p != 100 || l != math.MaxInt64 {
		t.Fatalf("after the builds: GOGC %d, limit %d; want the defaults back", p, l)
	}

	// The user's own settings.
	debug.SetGCPercent(50)
	end := g.during()
	if p, l := currentGC(); p != 50 || l != math.MaxInt64 {
		t.Errorf("GOGC=50 of the user's: during a build GOGC %d, limit %d; want both untouched", p, l)
	}
	end()
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(1 << 30)
	end = g.during()
	if p, l := currentGC(); p != buildGCPercent || l != 1<<30 {
		t.Errorf("GOMEMLIMIT of the user's: during a build GOGC %d, limit %d; want %d and the user's limit", p, l, buildGCPercent)
	}
	end()
	if p, l := currentGC(); p != 100 || l != 1<<30 {
		t.Errorf("after: GOGC %d, limit %d; want 100 and the user's limit", p, l)
	}
}
