package archive

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
)

// maxPadding bounds the zero padding accepted after the end-of-archive
// marker (GNU tar pads to 10 KiB records).
const maxPadding = 1 << 20

// drainPadding reads the decompressed stream to its end (so that gzip
// verifies its checksum), accepting only zero padding.
func drainPadding(s *streamReader) error {
	buf := make([]byte, 32<<10)
	var total int64
	for {
		n, err := s.Read(buf)
		total += int64(n)
		for _, b := range buf[:n] {
			if b != 0 {
				return fmt.Errorf("%w: data after the tar end-of-archive", ErrFormat)
			}
		}
		if total > maxPadding {
			return fmt.Errorf("%w: more than %d bytes of padding after the tar end-of-archive", ErrFormat, maxPadding)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return wrapFormat(err)
		}
	}
}

// wrapFormat wraps a decoding error with ErrFormat, leaving errors that
// already carry a sentinel, and context errors, as they are.
func wrapFormat(err error) error {
	for _, s := range []error{ErrLimit, ErrFormat, ErrUnsafePath, ErrEntryType, ErrDuplicate, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, s) {
			return err
		}
	}
	return fmt.Errorf("%w: %v", ErrFormat, err)
}

// compressedReader counts the compressed bytes and refuses more than limit.
type compressedReader struct {
	r     io.Reader
	n     int64
	limit int64
}

func (c *compressedReader) Read(p []byte) (int, error) {
	if c.n >= c.limit {
		// Probe for one more byte: more data than declared is an error.
		var one [1]byte
		if m, _ := io.ReadFull(c.r, one[:]); m > 0 {
			return 0, fmt.Errorf("%w: compressed stream longer than its declared %d bytes", ErrFormat, c.limit)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.limit-c.n {
		p = p[:c.limit-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// streamReader is the decompressed (tar) stream: it counts bytes, tracks
// the length of the trailing run of zero bytes, checks ctx and enforces the
// compression ratio and an overall bound on the stream size.
type streamReader struct {
	ctx        context.Context
	r          io.Reader
	limits     Limits
	compressed int64
	n          int64 // bytes read
	zeros      int64 // length of the run of zero bytes ending at n
}

// maxStream bounds the decompressed stream: file content plus, for every
// possible entry, a header, padding and a PAX header with a long path.
func (s *streamReader) maxStream() int64 {
	perEntry := int64(4*blockSize + 2*s.limits.MaxPathLength)
	return s.limits.MaxTotalSize + int64(s.limits.MaxEntries+2)*perEntry + maxPadding
}

func (s *streamReader) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	i := n
	for i > 0 && p[i-1] == 0 {
		i--
	}
	if i == 0 {
		s.zeros += int64(n)
	} else {
		s.zeros = int64(n - i)
	}
	if s.n > ratioThreshold && s.n > int64(s.limits.MaxCompressionRatio)*s.compressed {
		return n, fmt.Errorf("%w: compression ratio exceeds %d (%d bytes from %d)", ErrLimit, s.limits.MaxCompressionRatio, s.n, s.compressed)
	}
	if s.n > s.maxStream() {
		return n, fmt.Errorf("%w: decompressed stream exceeds %d bytes", ErrLimit, s.maxStream())
	}
	return n, err
}

func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "symlink"
	case tar.TypeLink:
		return "hardlink"
	case tar.TypeChar:
		return "character device"
	case tar.TypeBlock:
		return "block device"
	case tar.TypeFifo:
		return "FIFO"
	case tar.TypeCont:
		return "contiguous file"
	case tar.TypeGNUSparse:
		return "GNU sparse file"
	case tar.TypeXHeader, tar.TypeXGlobalHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
		return fmt.Sprintf("unexpected header type %q", t)
	}
	return fmt.Sprintf("type %q", t)
}
