package archive

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// Stats describes what Extract unpacked.
type Stats struct {
	Files int   // regular files created
	Dirs  int   // directories created (explicit entries and implied parents)
	Bytes int64 // sum of file sizes
}

// Extract unpacks the tar+gzip stream r into dir, which must already exist
// and be empty. compressedSize is the exact blob size: reading more or fewer
// bytes from r is an error, and it is the denominator of the compression
// ratio limit. A zero Limits field takes its default.
//
// Only regular files (TypeReg, legacy TypeRegA) and directories are
// unpacked; anything else, including sparse files, fails with ErrEntryType.
// Entry names must be relative and local after cleaning, with no ".."
// element, backslash, control character or drive letter (ErrUnsafePath); a
// leading "./" and a trailing "/" on directories are accepted, and a "./"
// directory entry is skipped. Duplicates, and names that collide after
// cleaning or case-folding (a file and a directory included), fail with
// ErrDuplicate. Limits are enforced while streaming on the bytes actually
// copied (ErrLimit); MaxCompressionRatio compares the size of the
// decompressed tar stream with compressedSize. Modes are normalised (files
// 0644, or 0755 if the header has any exec bit; directories 0755); owners
// and times in the archive are ignored. Files are created through an
// os.Root on dir with O_CREATE|O_EXCL, so nothing is ever written outside
// dir. The gzip stream is read to its end (its checksum is verified), the
// tar to its end-of-archive; data after the end-of-archive other than zero
// padding, or after the gzip member, is an error (ErrFormat).
//
// Errors are *PathError naming the entry where there is one, and wrap a
// sentinel. On error dir may hold a partial tree: the caller must remove
// it (os.RemoveAll(dir)) and must not use its content.
func Extract(ctx context.Context, r io.Reader, compressedSize int64, dir string, limits Limits) (Stats, error) {
	limits = limits.normalized()
	if compressedSize <= 0 {
		return Stats{}, fmt.Errorf("%w: compressed size %d", ErrFormat, compressedSize)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return Stats{}, err
	}
	defer root.Close()
	if err := checkEmpty(root); err != nil {
		return Stats{}, fmt.Errorf("extract into %s: %w", dir, err)
	}

	cr := &compressedReader{r: r, limit: compressedSize}
	br := bufio.NewReaderSize(cr, int(min(readSize, compressedSize))) // an io.ByteReader: gzip reads no further than its member
	zr, err := gzip.NewReader(br)
	if err != nil {
		return Stats{}, fmt.Errorf("%w: gzip: %v", ErrFormat, err)
	}
	zr.Multistream(false)
	stream := &streamReader{ctx: ctx, r: zr, limits: limits, compressed: compressedSize}
	x := &extractor{w: newWriter(root), limits: limits, tree: newTree(), stream: stream, tr: tar.NewReader(stream)}
	err = x.run()
	// The writer has applied everything queued (or failed) before Extract
	// returns: no goroutine and no descriptor outlives the call.
	if werr := x.w.finish(); werr != nil {
		return x.stats, werr
	}
	if err != nil {
		return x.stats, err
	}
	if err := drainPadding(stream); err != nil {
		return x.stats, err
	}
	if _, err := br.ReadByte(); err != io.EOF {
		if err == nil {
			err = errors.New("trailing data after the gzip stream")
		}
		return x.stats, wrapFormat(err)
	}
	if cr.n != compressedSize {
		return x.stats, fmt.Errorf("%w: read %d compressed bytes, expected %d", ErrFormat, cr.n, compressedSize)
	}
	return x.stats, nil
}

func checkEmpty(root *os.Root) error {
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if len(names) > 0 {
		return errors.New("directory is not empty")
	}
	if err != nil && err != io.EOF {
		return err
	}
	return nil
}

// readSize is the read size on the compressed stream (a spooled file).
const readSize = 128 << 10

type extractor struct {
	w      *writer // the file-system side, on its own goroutine
	limits Limits
	tree   *tree
	stream *streamReader
	tr     *tar.Reader
	stats  Stats
	seen   int // headers seen, "./" included
}

func (x *extractor) run() error {
	prev, prevPad := "", int64(0)
	for {
		start := x.stream.n
		hdr, err := x.tr.Next()
		if err == io.EOF {
			// archive/tar also reports EOF for a stream that simply ends:
			// require the two zero blocks of a real end-of-archive.
			if x.stream.n-start != prevPad+2*blockSize || x.stream.zeros < 2*blockSize {
				return at(prev, fmt.Errorf("%w: missing end-of-archive marker", ErrFormat))
			}
			return x.tree.checkBareRepository()
		}
		if err != nil {
			return at(prev, wrapFormat(err))
		}
		name, err := x.entry(hdr)
		if err != nil {
			return pathErr(hdr.Name, err)
		}
		prev, prevPad = name, 0
		if hdr.Typeflag != tar.TypeDir {
			prevPad = -hdr.Size & (blockSize - 1)
		}
	}
}

const blockSize = 512

// at wraps err with the path of the previous entry, if any.
func at(prev string, err error) error {
	if prev == "" {
		return err
	}
	return pathErr(prev, fmt.Errorf("after this entry: %w", err))
}

// entry validates and unpacks one header; it returns the cleaned name.
func (x *extractor) entry(hdr *tar.Header) (string, error) {
	x.seen++
	if x.seen > x.limits.MaxEntries+1 {
		return "", fmt.Errorf("%w: more than %d entries", ErrLimit, x.limits.MaxEntries)
	}
	e, err := checkHeader(hdr, x.limits, x.tree)
	if err != nil || e.name == "." {
		return e.name, err
	}
	if err := x.mkdirs(e.newDirs); err != nil {
		return "", err
	}
	if e.isDir {
		return e.name, nil
	}
	return e.name, x.file(e.name, hdr)
}

// checkedEntry is a header that passed checkHeader.
type checkedEntry struct {
	name    string // clean slash path; "." for the root directory entry
	isDir   bool
	newDirs []string // directories the tree gained by it, parents first
}

// checkHeader applies every check on one header that needs no content:
// entry type, sparse files, name length and safety, tool metadata, the
// directory rules, and duplicates and case collisions against t, to which
// the entry is added. Extract and Digests share it, so Digests refuses
// exactly the headers Extract refuses.
func checkHeader(hdr *tar.Header, limits Limits, t *tree) (checkedEntry, error) {
	isDir := false
	switch hdr.Typeflag {
	case tar.TypeReg, '\x00': // '\x00' is the legacy TypeRegA
	case tar.TypeDir:
		isDir = true
	default:
		return checkedEntry{}, fmt.Errorf("%w: %s", ErrEntryType, typeName(hdr.Typeflag))
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return checkedEntry{}, fmt.Errorf("%w: sparse file", ErrEntryType)
		}
	}
	if len(hdr.Name) > limits.MaxPathLength+1 {
		return checkedEntry{}, fmt.Errorf("%w: name is %d bytes, limit %d", ErrLimit, len(hdr.Name), limits.MaxPathLength)
	}
	name, err := cleanEntryName(hdr.Name, isDir)
	if err != nil {
		return checkedEntry{}, err
	}
	e := checkedEntry{name: name, isDir: isDir}
	if name == "." {
		if !isDir || hdr.Size != 0 {
			return checkedEntry{}, fmt.Errorf("%w: not a local path", ErrUnsafePath)
		}
		return e, nil
	}
	if err := limits.checkPathLimits(name); err != nil {
		return checkedEntry{}, err
	}
	if err := checkToolMetadata(name); err != nil {
		return checkedEntry{}, err
	}
	if isDir {
		if hdr.Size != 0 {
			return checkedEntry{}, fmt.Errorf("%w: directory with size %d", ErrFormat, hdr.Size)
		}
		e.newDirs, err = t.addDir(name, true)
	} else {
		e.newDirs, err = t.addFile(name)
	}
	if err != nil {
		return checkedEntry{}, err
	}
	return e, nil
}

// cleanEntryName turns an archive name into a checked, clean slash path.
func cleanEntryName(raw string, isDir bool) (string, error) {
	if raw == "" {
		return "", fmt.Errorf("%w: empty name", ErrUnsafePath)
	}
	if strings.HasPrefix(raw, "/") {
		return "", fmt.Errorf("%w: absolute path", ErrUnsafePath)
	}
	for _, elem := range strings.Split(raw, "/") {
		if elem == ".." {
			return "", fmt.Errorf("%w: %q element", ErrUnsafePath, "..")
		}
	}
	name := raw
	if isDir {
		name = strings.TrimSuffix(name, "/")
	} else if strings.HasSuffix(name, "/") {
		return "", fmt.Errorf("%w: file name ends with '/'", ErrUnsafePath)
	}
	if name == "" {
		return "", fmt.Errorf("%w: empty name", ErrUnsafePath)
	}
	name = path.Clean(name)
	if name == "." {
		return name, nil
	}
	if err := checkName(name); err != nil {
		return "", err
	}
	return name, nil
}

func (x *extractor) mkdirs(dirs []string) error {
	for _, d := range dirs {
		if x.tree.entries > x.limits.MaxEntries {
			return fmt.Errorf("%w: more than %d entries", ErrLimit, x.limits.MaxEntries)
		}
		if err := x.w.send(op{kind: opMkdir, name: d}); err != nil {
			return err
		}
		x.stats.Dirs++
	}
	return nil
}
