package cache_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/cache"
)

func TestBlobs(t *testing.T) {
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("hello blob")
	d := ocispec.Descriptor{Digest: digest.FromBytes(data), Size: int64(len(data))}
	if _, err := c.OpenBlob(d); !errors.Is(err, cache.ErrMiss) {
		t.Fatalf("empty cache: %v", err)
	}
	wrong := func(w io.Writer) error { _, err := w.Write([]byte("other blob")); return err }
	if err := c.PutBlob(d, wrong); err == nil {
		t.Fatal("stored bytes that do not match the digest")
	}
	if _, err := c.OpenBlob(d); !errors.Is(err, cache.ErrMiss) {
		t.Fatalf("a refused blob became visible: %v", err)
	}
	if err := c.PutBlob(d, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		t.Fatal(err)
	}
	f, err := c.OpenBlob(d)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if string(got) != string(data) {
		t.Fatalf("read %q", got)
	}
	// Corrupt the stored file: the next read is a miss and the file is gone.
	p := filepath.Join(c.Dir(), "blobs", "sha256", d.Digest.Encoded())
	if err := os.WriteFile(p, []byte("hello BLOB"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.OpenBlob(d); !errors.Is(err, cache.ErrMiss) {
		t.Fatalf("corrupt blob served: %v", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("corrupt blob not removed")
	}
	if entries, _ := os.ReadDir(filepath.Join(c.Dir(), "tmp")); len(entries) != 0 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestRecords(t *testing.T) {
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("m"), Size: 1}
	if _, err := c.Ref("r/x:1"); !errors.Is(err, cache.ErrMiss) {
		t.Fatal(err)
	}
	if err := c.SetRef("r/x:1", d); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Ref("r/x:1"); err != nil || got.Digest != d.Digest || got.MediaType != d.MediaType || got.Size != 1 {
		t.Fatalf("Ref = %+v, %v", got, err)
	}
	if c.Verified(d.Digest, "policy-a", 0) {
		t.Fatal("verified before marked")
	}
	if err := c.MarkVerified(d.Digest, "policy-a"); err != nil {
		t.Fatal(err)
	}
	if !c.Verified(d.Digest, "policy-a", time.Hour) || c.Verified(d.Digest, "policy-b", 0) {
		t.Fatal("verified records are not keyed by digest and policy")
	}
}

// TestSharedCacheRecordsIgnored: in a cache directory others can write, a
// planted verified record or ref record is not believed.
func TestSharedCacheRecordsIgnored(t *testing.T) {
	dir := t.TempDir()
	c, err := cache.Open(dir)
	if err != nil || !c.Private() {
		t.Fatalf("a fresh cache under t.TempDir() should be private: %v", err)
	}
	d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("m"), Size: 1}
	c.MarkVerified(d.Digest, "p")
	c.SetRef("r/x:1", d)
	if err := os.Chmod(filepath.Join(dir, "verified"), 0o777); err != nil {
		t.Fatal(err)
	}
	shared, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if shared.Private() || shared.Verified(d.Digest, "p", 0) {
		t.Fatal("a world-writable cache's verified records are trusted")
	}
	if _, err := shared.Ref("r/x:1"); !errors.Is(err, cache.ErrMiss) {
		t.Fatalf("a world-writable cache's ref records are trusted: %v", err)
	}
}
