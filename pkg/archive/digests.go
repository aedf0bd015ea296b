package archive

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"
)

// FileDigest is one regular file of an archive and the digest of its content.
type FileDigest struct {
	Path   string        `json:"path"`
	Size   int64         `json:"size"`
	Digest digest.Digest `json:"digest"`
}

// Digests reads the tar+gzip stream r of compressedSize bytes and returns its
// regular files in archive order with their SHA-256 digests, e.g. for an
// SBOM of a package. It applies Extract's checks on each header (the same
// checkHeader) and its size limits, and writes nothing.
func Digests(ctx context.Context, r io.Reader, compressedSize int64, limits Limits) ([]FileDigest, error) {
	limits = limits.normalized()
	if compressedSize <= 0 {
		return nil, fmt.Errorf("%w: compressed size %d", ErrFormat, compressedSize)
	}
	cr := &compressedReader{r: r, limit: compressedSize}
	zr, err := gzip.NewReader(bufio.NewReaderSize(cr, int(min(readSize, compressedSize))))
	if err != nil {
		return nil, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
	}
	zr.Multistream(false)
	stream := &streamReader{ctx: ctx, r: zr, limits: limits, compressed: compressedSize}
	tr := tar.NewReader(stream)
	t := newTree()
	var (
		out   []FileDigest
		total int64
		seen  int
	)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, wrapFormat(err)
		}
		if seen++; seen > limits.MaxEntries+1 {
			return nil, fmt.Errorf("%w: more than %d entries", ErrLimit, limits.MaxEntries)
		}
		e, err := checkHeader(hdr, limits, t)
		if err != nil {
			return nil, pathErr(hdr.Name, err)
		}
		if e.isDir {
			continue
		}
		name := e.name
		if hdr.Size > limits.MaxFileSize {
			return nil, pathErr(name, fmt.Errorf("%w: file is %d bytes, limit %d", ErrLimit, hdr.Size, limits.MaxFileSize))
		}
		if total += hdr.Size; total > limits.MaxTotalSize {
			return nil, pathErr(name, fmt.Errorf("%w: files exceed %d bytes in total", ErrLimit, limits.MaxTotalSize))
		}
		h := sha256.New()
		n, err := io.Copy(h, tr)
		if err != nil {
			return nil, pathErr(name, wrapFormat(err))
		}
		out = append(out, FileDigest{Path: name, Size: n, Digest: digest.NewDigest(digest.SHA256, h)})
	}
}
