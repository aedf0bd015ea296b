package tufroot

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ReadInitialRoot reads the initial TUF root.json to trust (--tuf-root),
// bounded however large the file says it is (a device or a FIFO reports no
// size): a missing file is not found, as a missing key file is; one too
// large or unreadable is ErrInitialRoot. Errors name the file.
func ReadInitialRoot(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxRootSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrInitialRoot, err)
	}
	if len(b) > MaxRootSize {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrInitialRoot, MaxRootSize)
	}
	return b, nil
}

// UseInitialRoot reads the TUF root.json at path into o.InitialRoot (the
// --tuf-root flag); without one, only DefaultURL's built-in root can be
// used: another URL is a command-line mistake (errdef.ErrUsage).
func (o *Options) UseInitialRoot(path string) error {
	if path != "" {
		b, err := ReadInitialRoot(path)
		if err != nil {
			return fmt.Errorf("--tuf-root: %w", err)
		}
		o.InitialRoot, o.InitialRootFile = b, path
	}
	if o.URL != "" && strings.TrimSuffix(o.URL, "/") != DefaultURL && path == "" {
		return errdef.Usagef("--tuf-url %s needs --tuf-root: the initial root.json to trust for that repository (only the public-good mirror's is built in)", o.URL)
	}
	return nil
}
