package cache

import (
	"fmt"
	"io"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Flags are the command line's cache settings.
type Flags struct {
	Dir     string // --cache-dir; "" for DefaultDir
	NoCache bool   // --no-cache
	Offline bool   // --offline: the cache is all there is
	Getenv  func(string) string
	// Warnings receives why the default cache cannot be used.
	Warnings io.Writer
}

// OpenFlags opens the cache f names, or returns nil to run without one:
// with NoCache (a usage error, errdef.ErrUsage, with Offline), or when the
// default location is unusable (no HOME in a minimal container, a read-only
// file system), which is written to Warnings but is not fatal unless
// Offline. Records are sealed with the key kept outside the cache
// (WithDefaultRecordKey).
func OpenFlags(f Flags) (*Cache, error) {
	if f.NoCache {
		if f.Offline {
			return nil, errdef.Usagef("--offline needs the cache: drop --no-cache")
		}
		return nil, nil
	}
	dir := f.Dir
	var err error
	if dir == "" {
		dir, err = DefaultDir(f.Getenv)
	}
	var c *Cache
	if err == nil {
		c, err = Open(dir)
	}
	if err != nil {
		if f.Offline || f.Dir != "" {
			return nil, err
		}
		fmt.Fprintf(f.Warnings, "Warning: running without a cache: %v\n", err)
		return nil, nil
	}
	return c.WithDefaultRecordKey(f.Getenv), nil
}
