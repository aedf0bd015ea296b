package consume_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/testregistry"
)

// inPlace serves the content layer for reading in place (as the cache
// does) from the bytes given, hashing what is read.
type inPlace struct {
	artifact.Source
	layer   []byte
	changed bool // Verified fails even if the bytes hash right: rewritten in place
	opened  int
}

func (s *inPlace) OpenBlob(_ context.Context, d ocispec.Descriptor) (artifact.BlobReader, error) {
	s.opened++
	return &hashingReader{r: bytes.NewReader(s.layer), d: d, h: d.Digest.Verifier(), changed: s.changed}, nil
}

type hashingReader struct {
	r io.Reader
	d ocispec.Descriptor
	h interface {
		io.Writer
		Verified() bool
	}
	n       int64
	changed bool
}

func (r *hashingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += int64(n)
	r.h.Write(p[:n])
	return n, err
}
func (r *hashingReader) Close() error { return nil }
func (r *hashingReader) Verified() error {
	if r.changed || r.n != r.d.Size || !r.h.Verified() {
		return fmt.Errorf("blob %s: %w", r.d.Digest, errdef.ErrDigestMismatch)
	}
	return nil
}

// TestExtractInPlace: a source that holds the layer on disk (the cache) is
// extracted from in place, and the tree is placed only if the bytes read
// were the layer: a corrupt copy, or one whose bytes changed as they were
// read, fails as an integrity error and leaves nothing behind.
func TestExtractInPlace(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	ref, _, c := publish(t, reg.Host())
	remote := artifact.Remote{Client: c, Ref: ref}
	loaded, err := consume.Load(ctx, remote, consume.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var layer bytes.Buffer
	if err := remote.FetchBlob(ctx, loaded.Content, &layer); err != nil {
		t.Fatal(err)
	}
	good := layer.Bytes()
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)/2] ^= 0xff

	src := &inPlace{Source: remote, layer: good}
	out := filepath.Join(t.TempDir(), "good")
	if _, err := consume.Pull(ctx, src, out, consume.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	if src.opened != 1 {
		t.Fatalf("OpenBlob called %d times, want 1: the layer was not read in place", src.opened)
	}
	assertSameTree(t, helloExample, out)

	for _, bad := range []*inPlace{{Source: remote, layer: corrupt}, {Source: remote, layer: good, changed: true}} {
		parent := t.TempDir()
		_, err := consume.Pull(ctx, bad, filepath.Join(parent, "out"), consume.PullOptions{})
		if !errors.Is(err, errdef.ErrDigestMismatch) {
			t.Errorf("changed %v: got %v, want an integrity failure", bad.changed, err)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("changed %v: left %v behind", bad.changed, entries)
		}
	}
}
