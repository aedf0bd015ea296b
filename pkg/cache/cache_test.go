package cache_test

import (
	"bytes"
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
	if _, err := c.BlobBytes(d); !errors.Is(err, cache.ErrMiss) {
		t.Fatalf("empty cache: %v", err)
	}
	wrong := func(w io.Writer) error { _, err := w.Write([]byte("other blob")); return err }
	if err := c.PutBlob(d, wrong); err == nil {
		t.Fatal("stored bytes that do not match the digest")
	}
	if err := c.ReadBlob(d, io.Discard); !errors.Is(err, cache.ErrMiss) {
		t.Fatalf("a refused blob became visible: %v", err)
	}
	if err := c.PutBlob(d, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := c.ReadBlob(d, &got); err != nil || got.String() != string(data) {
		t.Fatalf("ReadBlob: %q, %v", got.String(), err)
	}
	if b, err := c.BlobBytes(d); err != nil || string(b) != string(data) {
		t.Fatalf("BlobBytes: %q, %v", b, err)
	}
	// Corrupt the stored file: the next read is a miss and the file is gone.
	p := filepath.Join(c.Dir(), "blobs", "sha256", d.Digest.Encoded())
	if err := os.WriteFile(p, []byte("hello BLOB"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.ReadBlob(d, io.Discard); !errors.Is(err, cache.ErrMiss) {
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

// TestSealedRecords: with a record key, only records sealed with that key are
// believed: one planted by anyone else (or carried in a cache restored from
// elsewhere) is not.
func TestSealedRecords(t *testing.T) {
	dir := t.TempDir()
	mine, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mine.WithRecordKey([]byte("0123456789abcdef0123456789abcdef"))
	d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("m"), Size: 1}
	other, _ := cache.Open(dir)
	other.WithRecordKey([]byte("another key, not the user's one!"))
	other.MarkVerified(d.Digest, "p")
	other.SetRef("r/x:1", d)
	if mine.Verified(d.Digest, "p", 0) {
		t.Fatal("a record sealed with another key is believed")
	}
	if _, err := mine.Ref("r/x:1"); !errors.Is(err, cache.ErrMiss) {
		t.Fatalf("a ref record sealed with another key is believed: %v", err)
	}
	unsealed, _ := cache.Open(dir)
	unsealed.MarkVerified(d.Digest, "q")
	if mine.Verified(d.Digest, "q", 0) {
		t.Fatal("an unsealed record is believed by a keyed cache")
	}
	mine.MarkVerified(d.Digest, "p")
	mine.SetRef("r/x:1", d)
	if !mine.Verified(d.Digest, "p", time.Hour) {
		t.Fatal("the cache's own record is not believed")
	}
	if got, err := mine.Ref("r/x:1"); err != nil || got.Digest != d.Digest {
		t.Fatalf("own ref record: %v %v", got, err)
	}
	keyPath := filepath.Join(t.TempDir(), "cfg", "addonpack", "cache-record.key")
	k1, err := cache.LoadRecordKey(keyPath)
	if err != nil || len(k1) != 32 {
		t.Fatalf("LoadRecordKey: %v", err)
	}
	k2, _ := cache.LoadRecordKey(keyPath)
	fi, _ := os.Stat(keyPath)
	if string(k1) != string(k2) || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key is not kept, or not private: %v", fi.Mode())
	}
}
