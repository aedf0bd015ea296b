package layout

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// WriteTarball writes the graph rooted at root as an OCI layout tarball at
// path, tagged tag. The tarball is deterministic (sorted entries, fixed
// headers) and written atomically: a temporary file beside path is renamed
// into place only when complete.
func WriteTarball(ctx context.Context, src content.ReadOnlyStorage, root ocispec.Descriptor, path, tag string) (err error) {
	nodes, err := collect(ctx, src, root)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("OCI layout tarball %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := writeTar(ctx, tmp, src, root, nodes, tag); err != nil {
		return fmt.Errorf("OCI layout tarball %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// collect returns root and every descriptor reachable from it, sorted by digest, without duplicates.
func collect(ctx context.Context, src content.ReadOnlyStorage, root ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	seen := map[string]ocispec.Descriptor{}
	var walk func(d ocispec.Descriptor) error
	walk = func(d ocispec.Descriptor) error {
		if _, ok := seen[d.Digest.String()]; ok {
			return nil
		}
		seen[d.Digest.String()] = d
		children, err := content.Successors(ctx, src, d)
		if err != nil {
			return fmt.Errorf("reading %s: %w", d.Digest, err)
		}
		for _, c := range children {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	out := make([]ocispec.Descriptor, 0, len(seen))
	for _, d := range seen {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Digest < out[j].Digest })
	return out, nil
}

func writeTar(ctx context.Context, w io.Writer, src content.ReadOnlyStorage, root ocispec.Descriptor, nodes []ocispec.Descriptor, tag string) error {
	tw := tar.NewWriter(w)
	file := func(name string, size int64, r io.Reader) error {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: time.Unix(0, 0)}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		n, err := io.Copy(tw, r)
		if err == nil && n != size {
			err = fmt.Errorf("%s: wrote %d bytes, want %d", name, n, size)
		}
		return err
	}
	dir := func(name string) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755, ModTime: time.Unix(0, 0)})
	}
	layoutJSON, _ := json.Marshal(ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion})
	ref := root
	ref.Annotations = map[string]string{ocispec.AnnotationRefName: tag}
	indexJSON, err := json.Marshal(ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{ref},
	})
	if err != nil {
		return err
	}
	if err := dir("blobs/"); err != nil {
		return err
	}
	algos := map[string]bool{}
	for _, d := range nodes {
		if a := d.Digest.Algorithm().String(); !algos[a] {
			algos[a] = true
			if err := dir("blobs/" + a + "/"); err != nil {
				return err
			}
		}
		if err := copyBlob(ctx, src, d, func(r io.Reader) error {
			return file("blobs/"+d.Digest.Algorithm().String()+"/"+d.Digest.Encoded(), d.Size, r)
		}); err != nil {
			return err
		}
	}
	if err := file(ocispec.ImageIndexFile, int64(len(indexJSON)), bytes.NewReader(indexJSON)); err != nil {
		return err
	}
	if err := file(ocispec.ImageLayoutFile, int64(len(layoutJSON)), bytes.NewReader(layoutJSON)); err != nil {
		return err
	}
	return tw.Close()
}

func copyBlob(ctx context.Context, src content.ReadOnlyStorage, d ocispec.Descriptor, fn func(io.Reader) error) error {
	rc, err := src.Fetch(ctx, d)
	if err != nil {
		return fmt.Errorf("reading %s: %w", d.Digest, err)
	}
	defer rc.Close()
	vr := content.NewVerifyReader(rc, d)
	if err := fn(vr); err != nil {
		return err
	}
	return vr.Verify()
}
