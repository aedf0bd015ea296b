package cache

import (
	"bytes"
	"context"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
)

// ResolveManifest resolves like Resolve and returns the manifest bytes
// too, with as few requests as the cache allows (artifact.ManifestResolver):
//
//   - offline, or when the inner source cannot resolve with the manifest:
//     Resolve, and the manifest is fetched later by digest (from the cache);
//   - when the cache holds the manifest this reference last resolved to: one
//     HEAD, and the cached bytes if the digest did not move;
//   - otherwise (a cold cache, a moved tag): one GET that also returns the
//     manifest, which is stored in the cache.
func (s Source) ResolveManifest(ctx context.Context) (ocispec.Descriptor, []byte, error) {
	inner, ok := s.Inner.(artifact.ManifestResolver)
	if s.Offline || !ok || s.warm() {
		d, err := s.Resolve(ctx)
		return d, nil, err
	}
	d, raw, err := inner.ResolveManifest(ctx)
	if err != nil {
		return d, nil, err
	}
	if err := s.Cache.SetRef(s.Inner.Name(), d); err != nil {
		return d, nil, err
	}
	if !s.Cache.Private() {
		return d, raw, nil // not kept: see FetchBlob
	}
	// The bytes match d (ManifestResolver's contract; PutBlob checks again).
	if err := s.Cache.PutBlob(d, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(raw))
		return err
	}); err != nil {
		return d, nil, err
	}
	return d, raw, nil
}

// warm reports whether the (private) cache holds the manifest this reference last
// resolved to, so that a HEAD suffices when the reference did not move.
func (s Source) warm() bool {
	d, err := s.Cache.Ref(s.Inner.Name())
	if err != nil {
		return false
	}
	f, _, err := s.Cache.openBlob(d)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
