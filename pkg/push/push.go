// Package push publishes an add-on: it builds a source directory (or opens
// an OCI layout built earlier) and copies the artifact to a registry,
// uploading only the blobs the registry lacks.
package push

import (
	"context"
	"fmt"
	"os"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/registry"
)

// Pusher is the registry side of a push.
type Pusher interface {
	Push(ctx context.Context, src content.ReadOnlyStorage, root ocispec.Descriptor, ref registry.Reference) (registry.Reference, error)
}

// Options tune a push.
type Options struct {
	// Build tunes the build when the source is a directory.
	Build build.Options
}

// Result describes what was pushed.
type Result struct {
	// Ref is the pushed artifact by digest.
	Ref registry.Reference `json:"reference"`
	// Tag is the tag that now points at it, if any.
	Tag string `json:"tag,omitempty"`
	// Manifest is the root descriptor.
	Manifest ocispec.Descriptor `json:"manifest"`
}

// Push builds src (an add-on source directory, or an OCI layout directory or
// tarball as "PATH[:TAG]") and pushes it to ref.
func Push(ctx context.Context, dst Pusher, src string, ref registry.Reference, opts Options) (*Result, error) {
	store, root, err := open(ctx, src, opts)
	if err != nil {
		return nil, err
	}
	pushed, err := dst.Push(ctx, store, root, ref)
	if err != nil {
		return nil, err
	}
	return &Result{Ref: pushed, Tag: ref.Tag, Manifest: root}, nil
}

// open returns the store and root manifest of src.
func open(ctx context.Context, src string, opts Options) (content.ReadOnlyStorage, ocispec.Descriptor, error) {
	if layout.IsLayout(src) {
		fi, err := os.Stat(src)
		if err == nil && fi.IsDir() {
			if _, err := os.Stat(src + "/addon.yaml"); err == nil {
				return nil, ocispec.Descriptor{}, fmt.Errorf("%s holds both addon.yaml and an OCI layout: ambiguous source", src)
			}
		}
		return layout.Open(ctx, src)
	}
	store := memory.New()
	res, err := build.Build(ctx, src, store, opts.Build)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	return store, res.Manifest, nil
}
