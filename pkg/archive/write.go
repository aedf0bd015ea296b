package archive

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// CompressionLevel is the pinned gzip level of Write. Changing it (or the
// compressor) changes every digest: the golden test catches that.
const CompressionLevel = 6

// Write writes files as a deterministic tar+gzip stream to w:
//   - entries sorted by path (byte order); a directory entry (mode 0755)
//     precedes the first file under each directory; files are 0644, or 0755
//     when Exec;
//   - uid/gid 0, empty uname/gname, ModTime Unix 0, no access/change times;
//     archive/tar picks the header format (USTAR, PAX only when a path
//     needs it), which is deterministic for a given header;
//   - gzip by klauspost/compress at CompressionLevel, header without name,
//     comment or modification time.
//
// Write validates the list first, with DefaultLimits: paths must satisfy
// the rules Extract applies (ErrUnsafePath), be unique also when case-folded
// and not clash with implied directories (ErrDuplicate), and respect the
// limits (ErrLimit). So a stream Write produces is always accepted by
// Extract with DefaultLimits; for the same reason Write fails with ErrLimit,
// after the stream was written, if its compression ratio exceeds
// MaxCompressionRatio.
//
// It fails with ErrFileChanged if a file's content length differs from its
// Size. Errors name the path. On error, the bytes written to w must be
// discarded.
func Write(ctx context.Context, w io.Writer, files []File) error {
	return WriteLimits(ctx, w, files, DefaultLimits())
}

// WriteLimits is Write with other limits, for packages that need more than
// the defaults; consumers must then raise their Extract limits to match.
func WriteLimits(ctx context.Context, w io.Writer, files []File, limits Limits) error {
	zw := compressors.Get().(*gzip.Writer)
	defer compressors.Put(zw)
	return write(ctx, w, files, limits.normalized(), func(w io.Writer) (io.WriteCloser, error) {
		zw.Reset(w)
		return zw, nil
	})
}

// compressors reuses the pinned compressor's ~1 MB of tables between
// writes (a batch packs hundreds of small trees). A reset writer produces
// the same stream as a new one: the golden digest test covers both.
var compressors = sync.Pool{New: func() any {
	zw, err := newKlauspost(io.Discard)
	if err != nil {
		panic(err) // only for an invalid level, which CompressionLevel is not
	}
	return zw
}}

// newKlauspost returns the pinned compressor. Its Header is left zero: no
// name, no comment, MTIME 0.
func newKlauspost(w io.Writer) (*gzip.Writer, error) {
	return gzip.NewWriterLevel(w, CompressionLevel)
}

// write is Write with the compressor as a parameter (for benchmarks).
func write(ctx context.Context, w io.Writer, files []File, limits Limits, compressor func(io.Writer) (io.WriteCloser, error)) error {
	sorted, err := validateFiles(files, limits)
	if err != nil {
		return err
	}

	out := &countWriter{w: w}
	zw, err := compressor(out)
	if err != nil {
		return err
	}
	stream := &countWriter{w: zw}
	tw := tar.NewWriter(stream)
	epoch := time.Unix(0, 0)
	dirs := make(map[string]bool)
	for _, f := range sorted {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, d := range parents(f.Path) {
			if dirs[d] {
				continue
			}
			dirs[d] = true
			hdr := &tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: epoch}
			if err := tw.WriteHeader(hdr); err != nil {
				return pathErr(d, err)
			}
		}
		if err := writeFile(ctx, tw, f, epoch); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if out.err != nil {
		return out.err
	}
	if stream.n > ratioThreshold && stream.n > int64(limits.MaxCompressionRatio)*out.n {
		return fmt.Errorf("%w: compression ratio of %d/%d bytes exceeds %d", ErrLimit, stream.n, out.n, limits.MaxCompressionRatio)
	}
	return nil
}

func writeFile(ctx context.Context, tw *tar.Writer, f File, epoch time.Time) error {
	mode := int64(0o644)
	if f.Exec {
		mode = 0o755
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: f.Path, Mode: mode, Size: f.Size, ModTime: epoch}
	if err := tw.WriteHeader(hdr); err != nil {
		return pathErr(f.Path, err)
	}
	rc, err := f.Open()
	if err != nil {
		return pathErr(f.Path, err)
	}
	defer rc.Close()
	src := &ctxReader{ctx: ctx, r: rc}
	n, err := io.CopyN(tw, src, f.Size)
	if errors.Is(err, io.EOF) {
		return pathErr(f.Path, fmt.Errorf("%w: read %d bytes, expected %d", ErrFileChanged, n, f.Size))
	}
	if err != nil {
		return pathErr(f.Path, err)
	}
	var one [1]byte
	if m, _ := io.ReadFull(src, one[:]); m > 0 {
		return pathErr(f.Path, fmt.Errorf("%w: longer than %d bytes", ErrFileChanged, f.Size))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
}

// validateFiles checks paths, collisions and limits and returns the files
// sorted by path.
func validateFiles(files []File, limits Limits) ([]File, error) {
	sorted := make([]File, len(files))
	copy(sorted, files)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	t := newTree()
	var total int64
	for _, f := range sorted {
		if err := checkName(f.Path); err != nil {
			return nil, pathErr(f.Path, err)
		}
		if err := checkToolMetadata(f.Path); err != nil {
			return nil, pathErr(f.Path, err)
		}
		if err := limits.checkPathLimits(f.Path); err != nil {
			return nil, pathErr(f.Path, err)
		}
		if f.Open == nil {
			return nil, pathErr(f.Path, errors.New("nil Open"))
		}
		if f.Size < 0 || f.Size > limits.MaxFileSize {
			return nil, pathErr(f.Path, fmt.Errorf("%w: file size %d, limit %d", ErrLimit, f.Size, limits.MaxFileSize))
		}
		if total += f.Size; total > limits.MaxTotalSize {
			return nil, pathErr(f.Path, fmt.Errorf("%w: total size exceeds %d bytes", ErrLimit, limits.MaxTotalSize))
		}
		if _, err := t.addFile(f.Path); err != nil {
			return nil, pathErr(f.Path, err)
		}
		if t.entries > limits.MaxEntries {
			return nil, pathErr(f.Path, fmt.Errorf("%w: more than %d entries", ErrLimit, limits.MaxEntries))
		}
	}
	if err := t.checkBareRepository(); err != nil {
		return nil, err
	}
	return sorted, nil
}

// countWriter counts the bytes written through it and remembers the first
// error.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// ctxReader fails reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
