package tufroot

import (
	"fmt"
	"io"
	"os"
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
