package relocate

import (
	"archive/tar"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// writeLayoutTar writes the OCI layout directory dir as a tarball at path,
// atomically: index.json with its manifests sorted (by tag, then digest), the
// oci-layout file, blobs/ and the top-level files named in extra, entries in
// byte order with fixed headers, so the same content gives the same bytes.
func writeLayoutTar(dir, path string, extra ...string) (err error) {
	if err := sortIndex(filepath.Join(dir, ocispec.ImageIndexFile)); err != nil {
		return err
	}
	var names []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case rel == ocispec.ImageIndexFile, rel == ocispec.ImageLayoutFile, slices.Contains(extra, rel) && !d.IsDir():
		case rel == ocispec.ImageBlobsDir || len(rel) > 6 && rel[:6] == ocispec.ImageBlobsDir+"/":
		case d.IsDir():
			return filepath.SkipDir // oras-go's ingest directory
		default:
			return nil
		}
		if d.IsDir() {
			rel += "/"
		}
		names = append(names, rel)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	tw := tar.NewWriter(tmp)
	for _, name := range names {
		if err := addEntry(tw, dir, name); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func addEntry(tw *tar.Writer, dir, name string) error {
	hdr := &tar.Header{Name: name, ModTime: time.Unix(0, 0), Mode: 0o644, Typeflag: tar.TypeReg}
	if name[len(name)-1] == '/' {
		hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
		return tw.WriteHeader(hdr)
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	hdr.Size = fi.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// sortIndex rewrites index.json with its manifests in a stable order.
func sortIndex(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var idx ocispec.Index
	if err := json.Unmarshal(b, &idx); err != nil {
		return err
	}
	sort.SliceStable(idx.Manifests, func(i, j int) bool {
		a, b := idx.Manifests[i], idx.Manifests[j]
		ra, rb := a.Annotations[ocispec.AnnotationRefName], b.Annotations[ocispec.AnnotationRefName]
		if ra != rb {
			return ra < rb
		}
		return a.Digest < b.Digest
	})
	if idx.MediaType == "" {
		idx.MediaType = ocispec.MediaTypeImageIndex
	}
	out, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}
