package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

// ErrOffline is returned when --offline needs something the cache lacks.
var ErrOffline = errdef.New(errdef.ErrNotFound, "not in the cache (offline)")

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

// FetchBlob copies the blob to w from the cache, hashed as it is copied
// (Cache.ReadBlob), fetching and storing it first when missing. A cache
// that is not private (Cache.Private) is not used: the blob is fetched.
func (s Source) FetchBlob(ctx context.Context, d ocispec.Descriptor, w io.Writer) error {
	fetch := func(w io.Writer) error { return s.Inner.FetchBlob(ctx, d, w) }
	if err := s.cached(d, func() error { return s.Cache.ReadBlob(d, w) }); !errors.Is(err, ErrMiss) {
		return err
	}
	if err := s.store(d, fetch); err != nil {
		if errors.Is(err, errNotStored) {
			return fetch(w)
		}
		return err
	}
	return s.Cache.ReadBlob(d, w)
}

// OpenBlob opens the blob in the cache to be read in place, hashed as it is
// read (Cache.OpenBlob), fetching and storing it first when missing: a
// consumer extracts the cached, checked copy instead of copying it once
// more. A cache that is not private (Cache.Private) holds nothing to read
// in place: errors.ErrUnsupported (use FetchBlob).
func (s Source) OpenBlob(ctx context.Context, d ocispec.Descriptor) (artifact.BlobReader, error) {
	var r *BlobReader
	open := func() (err error) { r, err = s.Cache.OpenBlob(d); return err }
	err := s.cached(d, open)
	if errors.Is(err, ErrMiss) {
		err = s.store(d, func(w io.Writer) error { return s.Inner.FetchBlob(ctx, d, w) })
		if errors.Is(err, errNotStored) {
			return nil, errors.ErrUnsupported
		}
		if err == nil {
			err = open()
		}
	}
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return r, nil
}

// bytes returns the blob from the cache, read once and checked in memory
// (Cache.BlobBytes), fetching and storing it first when missing.
func (s Source) bytes(ctx context.Context, d ocispec.Descriptor, fetch func(io.Writer) error) ([]byte, error) {
	var b []byte
	read := func() (err error) { b, err = s.Cache.BlobBytes(d); return err }
	if err := s.cached(d, read); !errors.Is(err, ErrMiss) {
		return b, err
	}
	if err := s.store(d, fetch); err != nil {
		if !errors.Is(err, errNotStored) {
			return nil, err
		}
		var buf bytes.Buffer
		if err := fetch(&buf); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	return b, read()
}

// errNotStored: the cache is not private, so the blob is fetched, not kept.
var errNotStored = errors.New("cache not private")

// cached runs read on a private cache; ErrMiss otherwise.
func (s Source) cached(d ocispec.Descriptor, read func() error) error {
	if !s.Cache.Private() {
		if s.Offline {
			return fmt.Errorf("%s: blob %s: the cache at %s is writable by others: %w", s.Name(), d.Digest, s.Cache.Dir(), ErrOffline)
		}
		return ErrMiss
	}
	return read()
}

// store fetches the missing blob into a private cache (errNotStored for a
// cache that is not private), or fails offline.
func (s Source) store(d ocispec.Descriptor, fetch func(io.Writer) error) error {
	if s.Offline {
		return fmt.Errorf("%s: blob %s: %w", s.Name(), d.Digest, ErrOffline)
	}
	if !s.Cache.Private() {
		return errNotStored
	}
	return s.Cache.PutBlob(d, fetch)
}
