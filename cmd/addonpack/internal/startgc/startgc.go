// Package startgc keeps the garbage collector off while the binary's
// packages initialise.
//
// The binary links about 520 packages; their initialisation allocates ~7 MB
// (jsonschema compiles its meta-schemas, regexps compile, SDKs register),
// and with the default GOGC=100 the collector ran two or three times
// before main: about 7 ms of a 20 ms `addonpack version` and of a 37 ms
// verified pull of a small add-on (docs/performance.md). This package
// imports nothing but runtime/debug and os, so it is initialised as soon as
// they are (measured with GODEBUG=inittrace=1: after 1.5 of the 7 MB, well
// before the collector's first 4 MB goal); main calls Restore before it
// does anything else.
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
