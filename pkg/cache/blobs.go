package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
	f, p, err := c.openBlob(desc)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := check(f, desc); err != nil {
		os.Remove(p)
		return ErrMiss
	}
	if c.checked != nil {
		c.checked(p)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	v := desc.Digest.Verifier()
	n, err := io.Copy(io.MultiWriter(w, v), io.LimitReader(f, desc.Size+1))
	if err != nil {
		return err
	}
	if n != desc.Size || !v.Verified() {
		return fmt.Errorf("cache %s: blob %s: %w: %w", c.dir, desc.Digest, ErrChanged, errdef.ErrDigestMismatch)
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
