package prune

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrPins reports a protect file that cannot be read as any known format.
var ErrPins = errdef.New(errdef.ErrInvalid, "invalid protect file")

// maxPinsFile bounds a protect file.
const maxPinsFile = 16 << 20

// PinReader reads the digests a protect file pins. ok is false when data is
// not in the reader's format (the next reader is tried); an error means it
// is, but is invalid. StackLock and DigestList are the two LoadPins always
// knows.
type PinReader interface {
	ReadPins(name string, data []byte) (pins []digest.Digest, ok bool, err error)
}

// DigestList reads a file of digests, one per line ("sha256:<hex>");
// blank lines and lines starting with '#' are ignored.
type DigestList struct{}

// ReadPins implements PinReader. It claims any file; every other line must
// be a valid digest.
func (DigestList) ReadPins(name string, data []byte) ([]digest.Digest, bool, error) {
	var out []digest.Digest
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		d, err := digest.Parse(line)
		if err != nil {
			return nil, true, fmt.Errorf("%w: %s:%d: %q is not a digest (want sha256:<64 hex>): %w", ErrPins, name, n, line, err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, true, fmt.Errorf("%w: %s: %w", ErrPins, name, err)
	}
	return out, true, nil
}

// LoadPins reads path and returns the digests it pins, asking each reader in
// turn, then StackLock, then DigestList.
func LoadPins(path string, readers ...PinReader) ([]digest.Digest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("protect file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPinsFile+1))
	if err != nil {
		return nil, fmt.Errorf("protect file %s: %w", path, err)
	}
	if len(data) > maxPinsFile {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrPins, path, maxPinsFile)
	}
	for _, r := range append(readers, StackLock{}, DigestList{}) {
		pins, ok, err := r.ReadPins(path, data)
		if err != nil {
			return nil, err
		}
		if ok {
			return pins, nil
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrPins, path) // unreachable: DigestList claims every file
}
