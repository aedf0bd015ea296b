// Package cache is addonpack's content-addressed cache: blobs (manifests,
// configs, layers) stored under their digest and hashed on every read, as
// the bytes are used (so what is used is what was hashed), the last digest
// each reference resolved to (for --offline), and the verified-digest
// records that make repeated verification cheap.
//
//	<dir>/blobs/sha256/<hex>      content, written atomically, checked on read
//	<dir>/refs/<sha256(ref)>      "<digest> <mediaType> <size>" of the last resolve
//	<dir>/verified/<sha256(digest policy)>  present when digest passed that policy
package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrMiss is returned when the cache does not hold what was asked for.
var ErrMiss = errdef.New(errdef.ErrNotFound, "not in the cache")

// Cache is a cache directory. It is safe for concurrent use by goroutines
// and by processes: every write is a rename of a complete temporary file.
type Cache struct {
	dir string
	// private is true when the records (refs, verified) can only have been
	// written by this user: see Open.
	private bool
	// recordKey seals the records (HMAC-SHA256); see WithRecordKey.
	recordKey []byte
	// checked, when set, runs between a blob's check and its use: a test's
	// way in to rewrite the file there.
	checked func(path string)
}

// WithRecordKey makes the cache seal its records with key and believe only
// records sealed with it. Keep the key outside the cache directory (the CLI
// keeps it in ~/.config/addonpack): then neither a record planted in the
// cache nor a cache restored from elsewhere is believed.
func (c *Cache) WithRecordKey(key []byte) *Cache {
	c.recordKey = append([]byte(nil), key...)
	return c
}

// Open opens (creating if needed) the cache at dir. Blobs are hashed on
// every read, as they are used; the refs and verified records are believed.
// Both are used only when the cache directory and its subdirectories belong
// to the current user and no one else can write them — never in a shared or
// world-writable cache, where another user could rewrite a blob between its
// check and its use, or plant a record (Private is false, and Source then
// fetches every blob and keeps none). A cache restored from an untrusted source is not
// detected: do not do that (or pass --no-cache).
func Open(dir string) (*Cache, error) {
	for _, sub := range []string{"blobs", "refs", "verified", "validated", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("cache %s: %w", dir, err)
		}
	}
	c := &Cache{dir: dir, private: true}
	for _, d := range []string{dir, filepath.Join(dir, "refs"), filepath.Join(dir, "verified"), filepath.Join(dir, "validated"), filepath.Join(dir, "blobs"), filepath.Join(dir, "tmp")} {
		c.private = c.private && ownedPrivately(d)
	}
	return c, nil
}

// Private reports whether the cache's blobs and records are trusted (see
// Open).
func (c *Cache) Private() bool { return c.private }

// DefaultDir is $XDG_CACHE_HOME/addonpack, else ~/.cache/addonpack. getenv
// reads the environment.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "addonpack"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_CACHE_HOME nor HOME is set: pass --cache-dir")
	}
	return filepath.Join(home, ".cache", "addonpack"), nil
}

// Dir is the cache directory.
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) blobPath(d digest.Digest) string {
	return filepath.Join(c.dir, "blobs", d.Algorithm().String(), d.Encoded())
}

// PutBlob stores a blob produced by fill, which writes exactly the blob's
// bytes; the file is checked against desc before it becomes visible.
func (c *Cache) PutBlob(desc ocispec.Descriptor, fill func(w io.Writer) error) error {
	if err := desc.Digest.Validate(); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Join(c.dir, "tmp"), "blob-*")
	if err != nil {
		return fmt.Errorf("cache %s: %w", c.dir, err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := fill(tmp); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := check(tmp, desc); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	p := c.blobPath(desc.Digest)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// key hashes the parts of a record name into a file name.
func key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeRecord writes a small file atomically.
func (c *Cache) writeRecord(sub, name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Join(c.dir, "tmp"), "rec-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(c.dir, sub, name))
}
