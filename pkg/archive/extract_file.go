package archive

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
)

// file unpacks the regular file name (already validated and recorded): it
// checks the limits, streams the content to the writer in chunks and checks
// that the bytes read match the header.
func (x *extractor) file(name string, hdr *tar.Header) error {
	if x.tree.entries > x.limits.MaxEntries {
		return fmt.Errorf("%w: more than %d entries", ErrLimit, x.limits.MaxEntries)
	}
	if hdr.Size > x.limits.MaxFileSize {
		return fmt.Errorf("%w: file is %d bytes, limit %d", ErrLimit, hdr.Size, x.limits.MaxFileSize)
	}
	remaining := x.limits.MaxTotalSize - x.stats.Bytes
	if hdr.Size > remaining {
		return fmt.Errorf("%w: total size exceeds %d bytes", ErrLimit, x.limits.MaxTotalSize)
	}
	mode := os.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		mode = 0o755
	}
	if err := x.w.send(op{kind: opCreate, name: name, mode: mode}); err != nil {
		return err
	}
	// Never trust the header alone: read at most one byte more than allowed.
	allowed := min(x.limits.MaxFileSize, remaining)
	n, err := x.copyContent(io.LimitReader(x.tr, allowed+1), hdr.Size)
	x.stats.Bytes += n
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: content shorter than the %d bytes of its header (read %d)", ErrFormat, hdr.Size, n)
		}
		return wrapFormat(err)
	}
	if n > allowed {
		return fmt.Errorf("%w: content exceeds %d bytes", ErrLimit, allowed)
	}
	if n != hdr.Size {
		return fmt.Errorf("%w: content is %d bytes, header says %d", ErrFormat, n, hdr.Size)
	}
	if err := x.w.send(op{kind: opClose}); err != nil {
		return err
	}
	x.stats.Files++
	return nil
}

// copyContent reads r to its end in buffers and queues each for the writer.
// size is what the header announces: a file of less than smallFile bytes
// is read into one buffer of its own, of size+1 bytes (the extra byte sees
// the end); larger files go through the pool's chunks. It returns the bytes
// read; io.EOF ends the content and is not an error.
func (x *extractor) copyContent(r io.Reader, size int64) (int64, error) {
	want := int64(chunkSize)
	if size >= 0 && size < smallFile {
		want = size + 1
	}
	var total int64
	for {
		buf, pooled, err := x.w.buffer(want)
		want = chunkSize
		if err != nil {
			return total, err
		}
		n, rerr := fill(r, buf)
		total += int64(n)
		if n > 0 {
			if err := x.w.send(op{kind: opData, data: buf[:n], pooled: pooled}); err != nil {
				return total, err
			}
		} else if pooled {
			x.w.recycle(buf)
		}
		if rerr == io.EOF {
			return total, nil
		}
		if rerr != nil {
			return total, rerr
		}
	}
}

// fill reads into buf until it is full or r fails; unlike io.ReadFull it
// passes r's own error (io.EOF at a clean end) through unchanged.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := r.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
