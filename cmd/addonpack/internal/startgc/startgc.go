// Package startgc keeps the garbage collector off while the binary's
// packages initialise.
//
// The binary links about 520 packages; their initialisation allocates ~7 MB
// (jsonschema compiles its meta-schemas, regexps compile, SDKs register),
// and with the default GOGC=100 the collector ran three times before main:
// about 4.5 ms of `addonpack version` (19 → 14.7 ms) and of a verified pull
// of a small add-on (docs/performance.md, round 4). This package imports
// nothing but runtime/debug and os, so it is initialised early (Go
// initialises ready packages in import-path order; measured with
// GODEBUG=inittrace=1: after 1.5 of the 7 MB, before the collector's first
// 4 MB goal); main calls Restore before it does anything else.
package startgc

import (
	"os"
	"runtime/debug"
)

func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
	}
}

// Restore gives the collector back its default (GOGC=100), unless the
// user's GOGC was in force all along.
func Restore() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
}
