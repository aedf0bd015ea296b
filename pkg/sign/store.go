package sign

import (
	"bytes"
	"context"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"
)

// imageStore copies a go-containerregistry image (manifest, config, layers)
// into an oras memory store, for the registry client to push.
func imageStore(ctx context.Context, img v1.Image) (*memory.Store, ocispec.Descriptor, error) {
	store := memory.New()
	put := func(mediaType string, b []byte) (ocispec.Descriptor, error) {
		d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
		if ok, _ := store.Exists(ctx, d); ok {
			return d, nil
		}
		return d, store.Push(ctx, d, bytes.NewReader(b))
	}
	cfg, err := img.RawConfigFile()
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	if _, err := put(string(m.Config.MediaType), cfg); err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	for _, l := range layers {
		mt, err := l.MediaType()
		if err != nil {
			return nil, ocispec.Descriptor{}, err
		}
		rc, err := l.Compressed()
		if err != nil {
			return nil, ocispec.Descriptor{}, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, ocispec.Descriptor{}, err
		}
		if _, err := put(string(mt), b); err != nil {
			return nil, ocispec.Descriptor{}, err
		}
	}
	raw, err := img.RawManifest()
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	mt, err := img.MediaType()
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	root, err := put(string(mt), raw)
	return store, root, err
}
