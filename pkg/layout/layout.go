// Package layout writes and reads OCI image layouts (image-spec
// image-layout.md), as a directory or as a tarball, so that CI can build an
// add-on without a registry and push it later.
package layout

import (
	"context"
	"fmt"
	"os"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrLayout is matched by errors about a layout that cannot be used.
var ErrLayout = errdef.New(errdef.ErrInvalid, "invalid OCI layout")

// WriteDir copies the graph rooted at root from src into the OCI layout
// directory dir (created if missing; other content there is kept) and tags
// it with tag.
func WriteDir(ctx context.Context, src content.ReadOnlyStorage, root ocispec.Descriptor, dir, tag string) error {
	store, err := oci.NewWithContext(ctx, dir)
	if err != nil {
		return fmt.Errorf("OCI layout %s: %w", dir, err)
	}
	if err := oras.CopyGraph(ctx, src, store, root, oras.DefaultCopyGraphOptions); err != nil {
		return fmt.Errorf("writing %s to OCI layout %s: %w", root.Digest, dir, err)
	}
	if err := store.Tag(ctx, root, tag); err != nil {
		return fmt.Errorf("tagging %s in OCI layout %s: %w", root.Digest, dir, err)
	}
	return nil
}

// Store is a read-only layout opened by Open.
type Store interface {
	content.ReadOnlyStorage
	Resolve(ctx context.Context, reference string) (ocispec.Descriptor, error)
}

// OpenStore opens the OCI layout directory or tarball at path, read-only;
// a path that is not a layout is ErrLayout.
func OpenStore(ctx context.Context, path string) (*oci.ReadOnlyStore, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: %w", path, err)
	}
	var store *oci.ReadOnlyStore
	if fi.IsDir() {
		store, err = oci.NewFromFS(ctx, os.DirFS(path))
	} else {
		store, err = oci.NewFromTar(ctx, path)
	}
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: %w: %w", path, ErrLayout, err)
	}
	return store, nil
}

// Open opens an OCI layout directory or tarball at path ("PATH" or
// "PATH:TAG") and returns the store and the manifest to use: the one tagged
// TAG, else the only tagged one. It never writes.
func Open(ctx context.Context, spec string) (Store, ocispec.Descriptor, error) {
	path, tag := Split(spec)
	store, err := OpenStore(ctx, path)
	if err != nil {
		return nil, ocispec.Descriptor{}, err
	}
	if tag == "" {
		var tags []string
		if err := store.Tags(ctx, "", func(t []string) error { tags = append(tags, t...); return nil }); err != nil {
			return nil, ocispec.Descriptor{}, fmt.Errorf("OCI layout %s: %w", path, err)
		}
		if len(tags) != 1 {
			return nil, ocispec.Descriptor{}, fmt.Errorf("OCI layout %s holds %d tagged manifests (%s): name one as %s:TAG: %w",
				path, len(tags), strings.Join(tags, ", "), path, ErrLayout)
		}
		tag = tags[0]
	}
	desc, err := store.Resolve(ctx, tag)
	if err != nil {
		return nil, ocispec.Descriptor{}, fmt.Errorf("OCI layout %s: tag %q: %w", path, tag, err)
	}
	return store, desc, nil
}

// Split separates "PATH:TAG" into its parts. A spec that exists as a path
// as a whole is a path without a tag.
func Split(spec string) (path, tag string) {
	if _, err := os.Stat(spec); err == nil {
		return spec, ""
	}
	if i := strings.LastIndex(spec, ":"); i > 0 && !strings.ContainsAny(spec[i+1:], `/\`) {
		return spec[:i], spec[i+1:]
	}
	return spec, ""
}

// IsLayout reports whether spec names an existing OCI layout directory or a
// file (tarball), rather than a registry reference.
func IsLayout(spec string) bool {
	path, _ := Split(spec)
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		_, err := os.Stat(path + string(os.PathSeparator) + ocispec.ImageLayoutFile)
		return err == nil
	}
	return fi.Mode().IsRegular()
}
