package cache

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// fakeSource serves one blob and counts fetches.
type fakeSource struct {
	data    []byte
	fetches int
}

func (f *fakeSource) Resolve(context.Context) (ocispec.Descriptor, error) {
	return ocispec.Descriptor{}, errors.New("not used")
}
func (f *fakeSource) FetchManifest(context.Context, ocispec.Descriptor) ([]byte, error) {
	f.fetches++
	return f.data, nil
}
func (f *fakeSource) FetchBlobBytes(context.Context, ocispec.Descriptor, int64) ([]byte, error) {
	f.fetches++
	return f.data, nil
}
func (f *fakeSource) FetchBlob(_ context.Context, _ ocispec.Descriptor, w io.Writer) error {
	f.fetches++
	_, err := w.Write(f.data)
	return err
}
func (f *fakeSource) Name() string                     { return "fake" }
func (f *fakeSource) Pinned(ocispec.Descriptor) string { return "fake@" }

// TestBlobRewrittenBetweenCheckAndUse: another user who can write a cached
// blob rewrites it after it was hashed; the rewritten bytes are never used:
// the read fails as an integrity error (ReadBlob streams and hashes once),
// or never sees them (BlobBytes uses the bytes it hashed).
func TestBlobRewrittenBetweenCheckAndUse(t *testing.T) {
	good := []byte("image: registry.example.com/app@sha256:" + strings.Repeat("a", 64) + "\n")
	evil := bytes.Replace(good, []byte("registry.example.com"), []byte("evil.example.net/x/y"), 1)
	d := ocispec.Descriptor{Digest: digest.FromBytes(good), Size: int64(len(good))}
	for _, rewrite := range []struct {
		name string
		do   func(t *testing.T, p string)
	}{
		{"in place, same size", func(t *testing.T, p string) {
			evil := bytes.Repeat([]byte("x"), len(good))
			if err := os.WriteFile(p, evil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"in place, other size", func(t *testing.T, p string) {
			if err := os.WriteFile(p, evil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated", func(t *testing.T, p string) {
			if err := os.Truncate(p, 3); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(rewrite.name, func(t *testing.T) {
			c, err := Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			src := &fakeSource{data: good}
			s := Source{Inner: src, Cache: c}
			var first bytes.Buffer
			if err := s.FetchBlob(t.Context(), d, &first); err != nil || first.String() != string(good) {
				t.Fatalf("first fetch: %v", err)
			}
			c.checked = func(p string) { rewrite.do(t, p) }
			var got bytes.Buffer
			err = s.FetchBlob(t.Context(), d, &got)
			if !errors.Is(err, ErrChanged) || !errors.Is(err, errdef.ErrDigestMismatch) || !strings.Contains(err.Error(), d.Digest.String()) {
				t.Fatalf("err = %v, want ErrChanged (an integrity failure) naming the digest", err)
			}
			// Read in place (a pull extracting the cached layer): the same
			// rewrite fails Verified once the blob was read to its end.
			c.checked = nil
			if err := c.PutBlob(d, func(w io.Writer) error { _, err := w.Write(good); return err }); err != nil {
				t.Fatal(err)
			}
			c.checked = func(p string) { rewrite.do(t, p) }
			r, err := s.OpenBlob(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, r)
			r.Close()
			if err := r.Verified(); !errors.Is(err, ErrChanged) || !errors.Is(err, errdef.ErrDigestMismatch) {
				t.Fatalf("read in place: Verified = %v, want ErrChanged (an integrity failure)", err)
			}
			// BlobBytes hashes what it returns: a rewritten file is a miss
			// and the blob comes from the source again.
			c.checked = nil
			rewrite.do(t, c.blobPath(d.Digest))
			b, err := s.FetchBlobBytes(t.Context(), d, 1<<20)
			if err != nil || !bytes.Equal(b, good) {
				t.Fatalf("FetchBlobBytes = %q, %v; want the good bytes", b, err)
			}
			if src.fetches != 2 {
				t.Errorf("%d fetches, want 2", src.fetches)
			}
		})
	}
}

// TestSharedCacheNotUsedForBlobs: a cache directory others can write is
// neither read nor written for blobs; every blob is fetched.
func TestSharedCacheNotUsedForBlobs(t *testing.T) {
	good := []byte("the real blob")
	d := ocispec.Descriptor{Digest: digest.FromBytes(good), Size: int64(len(good))}
	for _, sub := range []string{".", "blobs", "tmp"} {
		t.Run(sub, func(t *testing.T) {
			dir := t.TempDir()
			c, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			// A blob planted while the cache was private, then the directory
			// opened to others.
			if err := c.PutBlob(d, func(w io.Writer) error { _, err := w.Write(good); return err }); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(dir, sub), 0o777); err != nil {
				t.Fatal(err)
			}
			c, err = Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if c.Private() {
				t.Fatal("a directory writable by others is private")
			}
			src := &fakeSource{data: good}
			s := Source{Inner: src, Cache: c}
			var got bytes.Buffer
			if err := s.FetchBlob(t.Context(), d, &got); err != nil || got.String() != string(good) {
				t.Fatalf("FetchBlob: %v", err)
			}
			if b, err := s.FetchManifest(t.Context(), d); err != nil || !bytes.Equal(b, good) {
				t.Fatalf("FetchManifest: %v", err)
			}
			if _, err := s.OpenBlob(t.Context(), d); !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("OpenBlob from a shared cache: %v, want errors.ErrUnsupported (read it with FetchBlob)", err)
			}
			if src.fetches != 2 {
				t.Errorf("%d fetches, want 2: the shared cache was read", src.fetches)
			}
			if entries, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(entries) != 0 {
				t.Errorf("wrote to the shared cache: %v", entries)
			}
			if _, err := (Source{Inner: src, Cache: c, Offline: true}).FetchBlobBytes(t.Context(), d, 1<<20); !errors.Is(err, ErrOffline) {
				t.Errorf("offline from a shared cache: %v, want ErrOffline", err)
			}
		})
	}
}
