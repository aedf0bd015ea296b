package relocate

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/oci"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Entry is one artifact of a copy of several (a locked stack), named by
// digest.
type Entry struct {
	// Ref is the artifact: its repository and digest, and the tag that
	// claims its version (specs/artifact.md section 11.6), "" for none.
	// Content is read by the digest, never by the tag.
	Ref registry.Reference
	// Name is the add-on it must hold; "" means the repository's last path
	// element.
	Name string
	// LayoutTag names the artifact in a tarball's index.json.
	LayoutTag string
}

// ErrImagesWithMany refuses Options.Images for a copy of several artifacts.
var ErrImagesWithMany = errdef.New(errdef.ErrUnsupported, "images are copied one add-on at a time")

// ToTarballMany writes every entry, read from its registry by digest with
// every signature, attestation and referrer, into one OCI layout tarball at
// path, each artifact tagged with its LayoutTag, plus the top-level files
// given (name → content; a stack's file and lock) and the trusted root
// opts.CarryTrustedRoot names as TrustedRootFile (its digest is each
// Result's TrustedRoot). With opts.Policy each
// entry is verified under the scope of its own repository, and bound to its
// name and tag, before anything is written; the tarball is written
// atomically, so a failure leaves nothing at path.
func ToTarballMany(ctx context.Context, c *registry.Client, entries []Entry, path string, files map[string][]byte, opts Options) ([]*Result, error) {
	if opts.Images {
		return nil, fmt.Errorf("%s: %w", path, ErrImagesWithMany)
	}
	files = maps.Clone(files) // nil stays nil
	var carried string
	if opts.CarryTrustedRoot != "" { // read and checked before anything is fetched
		raw, digest, err := verify.ReadTrustedRoot(opts.CarryTrustedRoot)
		if err != nil {
			return nil, err
		}
		if _, dup := files[TrustedRootFile]; dup {
			return nil, fmt.Errorf("OCI layout tarball %s: %w: %q given twice", path, errdef.ErrInvalidArgument, TrustedRootFile)
		}
		if files == nil {
			files = map[string][]byte{}
		}
		files[TrustedRootFile], carried = raw, digest
	}
	dir, store, err := newLayoutDir(ctx, path)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var results []*Result
	for _, e := range entries {
		res, err := exportEntry(ctx, c, e, store, path, opts)
		if err != nil {
			return nil, err
		}
		res.TrustedRoot = carried
		results = append(results, res)
	}
	var names []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		if filepath.Base(name) != name || name == ocispec.ImageIndexFile || name == ocispec.ImageLayoutFile || name == "blobs" {
			return nil, fmt.Errorf("OCI layout tarball %s: %q cannot be a top-level file", path, name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return nil, fmt.Errorf("OCI layout tarball %s: %w", path, err)
		}
		names = append(names, name)
	}
	if err := writeLayoutTar(dir, path, names...); err != nil {
		return nil, fmt.Errorf("OCI layout tarball %s: %w", path, err)
	}
	return results, nil
}

// exportEntry plans, verifies and binds one entry and copies it into store.
func exportEntry(ctx context.Context, c *registry.Client, e Entry, store *oci.Store, path string, opts Options) (*Result, error) {
	byDigest := e.Ref.WithDigest(e.Ref.Digest)
	root, err := c.Resolve(ctx, byDigest)
	if err != nil {
		return nil, c.ExplainNotFound(ctx, byDigest, err)
	}
	res := &Result{Source: e.Ref.String(), Destination: path, Digest: root.Digest, Tag: e.LayoutTag}
	rs := remoteSource{c: c, ref: byDigest}
	items, err := plan(ctx, rs, root, e.LayoutTag, opts.maxReferrers())
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", byDigest, err)
	}
	if res.SourceVerification, err = verifySnapshot(ctx, rs, items, byDigest, root, opts); err != nil {
		return nil, fmt.Errorf("copy %s: %w", byDigest, err)
	}
	named := opts
	named.Name = e.Name
	if _, err := bind(ctx, artifact.Remote{Client: c, Ref: byDigest}, root, named, e.Ref); err != nil {
		return nil, err
	}
	if err := exportItems(ctx, rs, items, store, res.Source, path); err != nil {
		return nil, err
	}
	res.Items = items
	return res, nil
}

// FromTarballMany pushes every entry of the OCI layout tarball (or
// directory) at path to its destination: Ref is the destination repository
// with the tag to set ("" for none) and the digest of the artifact in the
// layout. Every entry is verified — its signatures in the layout, under the
// scope of its destination repository — and bound to its name and tag
// before anything is written; then every entry is pushed by digest and
// verified at its destination; only then are the tags set, so a failure
// leaves no tag pointing at a copy (untagged content may remain).
func FromTarballMany(ctx context.Context, c *registry.Client, path string, entries []Entry, opts Options) ([]*Result, error) {
	if opts.Images {
		return nil, fmt.Errorf("%s: %w", path, ErrImagesWithMany)
	}
	ls, err := openLayout(ctx, path)
	if err != nil {
		return nil, err
	}
	type staged struct {
		res   *Result
		items []Item
		dst   registry.Reference
	}
	var all []staged
	for _, e := range entries {
		root, err := ls.Resolve(ctx, e.Ref.Digest.String())
		if err != nil {
			return nil, fmt.Errorf("OCI layout %s: %s (%s): %w", path, e.Ref.Digest, e.Ref.Repo(), err)
		}
		res := &Result{Source: path + "@" + root.Digest.String(), Digest: root.Digest}
		items, err := plan(ctx, ls, root, e.Ref.Tag, opts.maxReferrers())
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", res.Source, err)
		}
		if res.SourceVerification, err = verifySnapshot(ctx, ls, items, e.Ref, root, opts); err != nil {
			return nil, fmt.Errorf("copy %s to %s: %w", res.Source, e.Ref.Repo(), err)
		}
		named := opts
		named.Name = e.Name
		if _, err := bind(ctx, &artifact.Layout{Path: path, Store: ls.ReadOnlyStore, Root: root}, root, named, e.Ref); err != nil {
			return nil, err
		}
		dst := e.Ref
		dst.Digest = ""
		all = append(all, staged{res: res, items: items, dst: dst})
	}
	for i, s := range all {
		if all[i].dst, err = stage(ctx, c, ls, s.items, s.dst, opts, s.res, nil); err != nil {
			return nil, err
		}
	}
	var results []*Result
	for _, s := range all {
		if err := setTag(ctx, c, ls, s.items[0].Descriptor, s.dst, s.res); err != nil {
			return nil, err
		}
		results = append(results, s.res)
	}
	return results, nil
}

// openLayout opens an OCI layout directory or tarball for reading.
func openLayout(ctx context.Context, path string) (layoutSource, error) {
	store, err := layout.OpenStore(ctx, path)
	if err != nil {
		return layoutSource{}, err
	}
	return layoutSource{ReadOnlyStore: store, path: path}, nil
}

// ReadLayoutFile returns the top-level file name of the OCI layout tarball
// (or directory) at path, of at most max bytes; an error wrapping
// fs.ErrNotExist when it has none.
func ReadLayoutFile(path, name string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: %w", path, err)
	}
	limited := func(r io.Reader) ([]byte, error) {
		b, err := io.ReadAll(io.LimitReader(r, max+1))
		if err == nil && int64(len(b)) > max {
			err = fmt.Errorf("larger than %d bytes: %w", max, layout.ErrLayout)
		}
		if err != nil {
			return nil, fmt.Errorf("OCI layout %s: %s: %w", path, name, err)
		}
		return b, nil
	}
	if fi.IsDir() {
		f, err := os.Open(filepath.Join(path, name))
		if err != nil {
			return nil, fmt.Errorf("OCI layout %s: %w", path, err)
		}
		defer f.Close()
		return limited(f)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("OCI layout %s: no %s in it: %w", path, name, os.ErrNotExist)
		}
		if err != nil {
			return nil, fmt.Errorf("OCI layout %s: %w: %w", path, layout.ErrLayout, err)
		}
		if h.Typeflag == tar.TypeReg && filepath.Clean(h.Name) == name {
			return limited(tr)
		}
	}
}

// VerifyTarballEntry verifies the artifact e.Ref.Digest of the OCI layout
// tarball (or directory) at path as FromTarballMany would before writing:
// its signatures in the layout under opts.Policy, in the scope of e.Ref (its
// destination repository), and the add-on bound to e's name and tag. It
// writes nothing: a dry run of an import.
func VerifyTarballEntry(ctx context.Context, path string, e Entry, opts Options) (*verify.Result, error) {
	ls, err := openLayout(ctx, path)
	if err != nil {
		return nil, err
	}
	root, err := ls.Resolve(ctx, e.Ref.Digest.String())
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: %s (%s): %w", path, e.Ref.Digest, e.Ref.Repo(), err)
	}
	items, err := plan(ctx, ls, root, e.Ref.Tag, opts.maxReferrers())
	if err != nil {
		return nil, fmt.Errorf("copy %s@%s: %w", path, root.Digest, err)
	}
	v, err := verifySnapshot(ctx, ls, items, e.Ref, root, opts)
	if err != nil {
		return v, fmt.Errorf("copy %s@%s to %s: %w", path, root.Digest, e.Ref.Repo(), err)
	}
	named := opts
	named.Name = e.Name
	_, err = bind(ctx, &artifact.Layout{Path: path, Store: ls.ReadOnlyStore, Root: root}, root, named, e.Ref)
	return v, err
}
