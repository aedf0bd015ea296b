package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrChanged is wrapped (with errdef.ErrDigestMismatch, an integrity
// failure) by ReadBlob when a cached blob changed between its check and its
// use: someone rewrote it in place.
var ErrChanged = errdef.New(errdef.ErrIntegrity, "cached blob changed while it was read")

// openBlob opens the cached file of desc in a private cache, or reports a
// miss.
func (c *Cache) openBlob(desc ocispec.Descriptor) (*os.File, string, error) {
	if err := desc.Digest.Validate(); err != nil {
		return nil, "", err
	}
	p := c.blobPath(desc.Digest)
	if !c.private || !ownedPrivately(filepath.Dir(p)) {
		return nil, p, ErrMiss
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, p, ErrMiss
	}
	return f, p, err
}

// ReadBlob copies the cached blob of desc to w. The bytes are hashed as they
// are copied, so what w receives is what was checked: a file rewritten
// while it is read fails with ErrChanged (w then holds bytes to discard, as
// with registry.Client.FetchBlob). A file that fails a check before the
// copy (an ordinary corruption) is removed and reported as ErrMiss, with w
// untouched.
func (c *Cache) ReadBlob(desc ocispec.Descriptor, w io.Writer) error {
	r, err := c.OpenBlob(desc)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := io.Copy(w, r); err != nil {
		return err
	}
	return r.Verified()
}

// OpenBlob opens the cached blob of desc to be read in place: the file is
// checked first (a corrupt one is removed and reported as ErrMiss), and the
// bytes are hashed again as they are read, so that once the blob was read
// to its end BlobReader.Verified says whether they were the blob — a file
// rewritten in place between the check and the read fails with ErrChanged.
func (c *Cache) OpenBlob(desc ocispec.Descriptor) (*BlobReader, error) {
	f, p, err := c.openBlob(desc)
	if err != nil {
		return nil, err
	}
	if err := check(f, desc); err != nil {
		f.Close()
		os.Remove(p)
		return nil, ErrMiss
	}
	if c.checked != nil {
		c.checked(p)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &BlobReader{f: f, r: io.LimitReader(f, desc.Size+1), v: desc.Digest.Verifier(), desc: desc, dir: c.dir}, nil
}

// BlobReader reads a cached blob in place, hashing what it reads.
type BlobReader struct {
	f    *os.File
	r    io.Reader
	v    digest.Verifier
	n    int64
	desc ocispec.Descriptor
	dir  string
}

func (b *BlobReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	b.v.Write(p[:n])
	return n, err
}

// Close closes the file.
func (b *BlobReader) Close() error { return b.f.Close() }

// Verified reports whether the bytes read so far are exactly the blob:
// its size and digest (ErrChanged, an integrity failure, otherwise). Call
// it once the blob was read to its end.
func (b *BlobReader) Verified() error {
	if b.n != b.desc.Size || !b.v.Verified() {
		return fmt.Errorf("cache %s: blob %s: %w: %w", b.dir, b.desc.Digest, ErrChanged, errdef.ErrDigestMismatch)
	}
	return nil
}

// BlobBytes returns the cached blob of desc, read once and checked in
// memory: the bytes returned are the bytes hashed. A blob that fails the
// check is removed and reported as ErrMiss.
func (c *Cache) BlobBytes(desc ocispec.Descriptor) ([]byte, error) {
	f, p, err := c.openBlob(desc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(f, desc.Size+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) != desc.Size || desc.Digest.Algorithm().FromBytes(buf.Bytes()) != desc.Digest {
		os.Remove(p)
		return nil, ErrMiss
	}
	return buf.Bytes(), nil
}

// check re-hashes f against desc.
func check(f *os.File, desc ocispec.Descriptor) error {
	v := desc.Digest.Verifier()
	n, err := io.Copy(v, io.LimitReader(f, desc.Size+1))
	if err != nil {
		return err
	}
	if n != desc.Size || !v.Verified() {
		return fmt.Errorf("cached blob %s is corrupt", desc.Digest)
	}
	return nil
}
