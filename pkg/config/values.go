package config

import (
	"fmt"
	"io"
	"os"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// MaxValuesSize bounds a user's config object read by ReadValues.
const MaxValuesSize = 1 << 20

// ReadValues reads a user's config object: the file at path, or stdin for
// "-"; "" means none (nil, the packed defaults). It returns the bytes and
// the name to report them under ("<stdin>" or the path), refusing more than
// MaxValuesSize bytes.
func ReadValues(path string, stdin io.Reader) ([]byte, string, error) {
	name := path
	var r io.Reader
	switch path {
	case "":
		return nil, "", nil
	case "-":
		name, r = "<stdin>", stdin
	default:
		f, err := os.Open(path)
		if err != nil {
			return nil, "", fmt.Errorf("values: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxValuesSize+1))
	if err != nil {
		return nil, "", fmt.Errorf("values %s: %w", name, err)
	}
	if len(data) > MaxValuesSize {
		return nil, "", fmt.Errorf("values %s: more than %d bytes: %w", name, MaxValuesSize, errdef.ErrInvalidArgument)
	}
	return data, name, nil
}
