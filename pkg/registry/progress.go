package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// Transfer is one blob moving between addonpack and a registry, as told to
// Options.Progress.
type Transfer struct {
	// Upload is true for a blob pushed, false for one fetched.
	Upload bool
	// Repository is the registry/repository the blob moves to or from.
	Repository string
	// Descriptor names the blob: digest, size, media type.
	Descriptor ocispec.Descriptor
}

// Meter counts the bytes of one Transfer. Done is called once, at the end.
// A Meter must be safe for concurrent use: an upload's bytes are counted on
// the HTTP transport's goroutine, and transfers run concurrently.
type Meter interface {
	// Add tells that n more bytes moved.
	Add(n int64)
	// Done tells that the transfer ended: nil when every byte moved.
	Done(err error)
}

// ProgressFunc is Options.Progress: it is called as a blob transfer starts
// and returns the Meter for it, or nil to leave it uncounted.
type ProgressFunc func(Transfer) Meter

// errIncomplete is what a Meter is told when an upload's source was closed
// before all its bytes were read (the upload failed or was skipped).
var errIncomplete = errors.New("transfer stopped before its end")

// meter starts a Meter for t, or returns nil when nobody counts.
func (c *Client) meter(t Transfer) Meter {
	if c.opts.Progress == nil {
		return nil
	}
	return c.opts.Progress(t)
}

// meteredWriter counts what is written through it.
type meteredWriter struct {
	w io.Writer
	m Meter
}

func (mw meteredWriter) Write(p []byte) (int, error) {
	n, err := mw.w.Write(p)
	mw.m.Add(int64(n))
	return n, err
}

// meteredSource is an upload's source whose blob reads are counted: the
// bytes CopyGraph reads from it are the bytes it sends. Manifests are not
// counted (they are small, and pushed in one request).
type meteredSource struct {
	content.ReadOnlyStorage
	c    *Client
	repo string
}

func (s meteredSource) Fetch(ctx context.Context, d ocispec.Descriptor) (io.ReadCloser, error) {
	rc, err := s.ReadOnlyStorage.Fetch(ctx, d)
	if err != nil || isManifest(d.MediaType) {
		return rc, err
	}
	m := s.c.meter(Transfer{Upload: true, Repository: s.repo, Descriptor: d})
	if m == nil {
		return rc, nil
	}
	return &meteredReader{rc: rc, m: m, size: d.Size}, nil
}

// meteredReader counts what is read through it and ends its Meter on the
// first Close (both oras-go and net/http close an upload's body): done when
// every byte was read, incomplete otherwise.
type meteredReader struct {
	rc   io.ReadCloser
	m    Meter
	size int64
	n    atomic.Int64
	once sync.Once
}

func (r *meteredReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.n.Add(int64(n))
	r.m.Add(int64(n))
	return n, err
}

func (r *meteredReader) Close() error {
	r.once.Do(func() {
		if n := r.n.Load(); n < r.size {
			r.m.Done(fmt.Errorf("%w: %d of %d bytes", errIncomplete, n, r.size))
		} else {
			r.m.Done(nil)
		}
	})
	return r.rc.Close()
}

// isManifest tells manifest media types (counted nowhere) from blobs.
func isManifest(mt string) bool {
	switch mt {
	case ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageIndex,
		"application/vnd.docker.distribution.manifest.v2+json",
		"application/vnd.docker.distribution.manifest.list.v2+json":
		return true
	}
	return false
}
