//go:build !unix

package atomicfile

import "os"

// canLock: without flock, a live owner cannot be told from a gone one, so
// sweepStale leaves every staging directory in place; a pull killed on such
// a platform leaves its ".<target>.addonpack-*" directory to remove by hand.
const canLock = false

const oNoFollow = 0

// flock locks nothing: see canLock.
func flock(*os.File) error { return nil }
