package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/registry"
)

// ErrOffline is returned when --offline needs something the cache lacks.
var ErrOffline = errors.New("not in the cache (offline)")

// Source wraps an artifact.Source with the cache: every blob is served from
// the cache when present (no request at all), else fetched once, checked and
// stored. With Offline, nothing is fetched: a tag resolves to the digest it
// last resolved to, and a missing blob is an error.
type Source struct {
	Inner   artifact.Source
	Cache   *Cache
	Offline bool
}

func (s Source) Name() string                       { return s.Inner.Name() }
func (s Source) Pinned(d ocispec.Descriptor) string { return s.Inner.Pinned(d) }

// Resolve resolves online and records the answer, or answers from the
// record when offline.
func (s Source) Resolve(ctx context.Context) (ocispec.Descriptor, error) {
	if s.Offline {
		d, err := s.Cache.Ref(s.Inner.Name())
		if err != nil {
			return d, fmt.Errorf("%s: %w", s.Inner.Name(), ErrOffline)
		}
		// A digest in the reference is the answer; the record must agree.
		if r, ok := s.Inner.(artifact.Remote); ok && r.Ref.Digest != "" && r.Ref.Digest != d.Digest {
			return ocispec.Descriptor{}, fmt.Errorf("%s: the cache last resolved it to %s: %w", s.Inner.Name(), d.Digest, ErrOffline)
		}
		return d, nil
	}
	d, err := s.Inner.Resolve(ctx)
	if err != nil {
		return d, err
	}
	if err := s.Cache.SetRef(s.Inner.Name(), d); err != nil {
		return d, err
	}
	return d, nil
}

func (s Source) FetchManifest(ctx context.Context, d ocispec.Descriptor) ([]byte, error) {
	return s.bytes(ctx, d, func(w io.Writer) error {
		b, err := s.Inner.FetchManifest(ctx, d)
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	})
}

func (s Source) FetchBlobBytes(ctx context.Context, d ocispec.Descriptor, max int64) ([]byte, error) {
	if d.Size > max {
		return nil, fmt.Errorf("%s: blob %s is %d bytes, more than the limit of %d: %w", s.Name(), d.Digest, d.Size, max, registry.ErrTooLarge)
	}
	return s.bytes(ctx, d, func(w io.Writer) error { return s.Inner.FetchBlob(ctx, d, w) })
}

func (s Source) FetchBlob(ctx context.Context, d ocispec.Descriptor, w io.Writer) error {
	f, err := s.open(ctx, d, func(w io.Writer) error { return s.Inner.FetchBlob(ctx, d, w) })
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

func (s Source) bytes(ctx context.Context, d ocispec.Descriptor, fetch func(io.Writer) error) ([]byte, error) {
	f, err := s.open(ctx, d, fetch)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, f)
	return buf.Bytes(), err
}

// open returns the cached blob, fetching it first when missing.
func (s Source) open(ctx context.Context, d ocispec.Descriptor, fetch func(io.Writer) error) (*os.File, error) {
	f, err := s.Cache.OpenBlob(d)
	if err == nil {
		return f, nil
	}
	if !errors.Is(err, ErrMiss) {
		return nil, err
	}
	if s.Offline {
		return nil, fmt.Errorf("%s: blob %s: %w", s.Name(), d.Digest, ErrOffline)
	}
	if err := s.Cache.PutBlob(d, fetch); err != nil {
		return nil, err
	}
	return s.Cache.OpenBlob(d)
}
