package relocate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// DefaultTag names the artifact in a tarball when its source reference has
// no tag.
const DefaultTag = "latest"

// cosignTag matches cosign's classic tags and the referrers tag schema.
var cosignTag = regexp.MustCompile(`^[a-z0-9]+-[a-f0-9]{32,}(\.[a-z]+)?$`)

// ToTarball writes the artifact src with every signature, attestation and
// referrer to path as an OCI image layout tarball: the artifact tagged with
// src's tag (DefaultTag without one), cosign's tags under their names, and
// referrers as untagged manifests of index.json, and the trusted root
// opts.CarryTrustedRoot names as TrustedRootFile. With opts.Policy the
// source is verified before anything is written. The tarball is written
// atomically.
func ToTarball(ctx context.Context, c *registry.Client, src registry.Reference, path string, opts Options) (*Result, error) {
	var carried []byte
	var carriedDigest string
	if opts.CarryTrustedRoot != "" {
		var err error
		if carried, carriedDigest, err = verify.ReadTrustedRoot(opts.CarryTrustedRoot); err != nil {
			return nil, err
		}
	}
	root, err := c.Resolve(ctx, src)
	if err != nil {
		return nil, c.ExplainNotFound(ctx, src, err)
	}
	res := &Result{Source: src.String(), Destination: path, Digest: root.Digest, TrustedRoot: carriedDigest}
	tag := src.Tag
	if tag == "" {
		tag = DefaultTag
	}
	rs := remoteSource{c: c, ref: src}
	items, err := plan(ctx, rs, root, tag, opts.maxReferrers())
	if err != nil {
		return res, fmt.Errorf("copy %s: %w", src.WithDigest(root.Digest), err)
	}
	if res.SourceVerification, err = verifySnapshot(ctx, rs, items, src, root, opts); err != nil {
		return res, fmt.Errorf("copy %s: %w", src.WithDigest(root.Digest), err)
	}
	loaded, err := bind(ctx, artifact.Remote{Client: c, Ref: src}, root, opts, src)
	if err != nil {
		return res, err
	}
	res.Items, res.Tag = items, tag
	var images []string
	if opts.Images {
		images = loaded.Addon.Spec.Images
	}
	dir, store, err := newLayoutDir(ctx, path)
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	if err := exportItems(ctx, rs, items, store, res.Source, path); err != nil {
		return res, err
	}
	imgItems, err := exportImages(ctx, c, images, store, opts.maxReferrers())
	if err != nil {
		return res, fmt.Errorf("copy %s to %s: %w", res.Source, path, err)
	}
	res.Items = append(res.Items, imgItems...)
	var extra []string
	if carried != nil {
		if err := os.WriteFile(filepath.Join(dir, TrustedRootFile), carried, 0o644); err != nil {
			return res, fmt.Errorf("OCI layout tarball %s: %w", path, err)
		}
		extra = append(extra, TrustedRootFile)
	}
	if err := writeLayoutTar(dir, path, extra...); err != nil {
		return res, fmt.Errorf("OCI layout tarball %s: %w", path, err)
	}
	return res, nil
}

// FromTarball pushes the artifact of the OCI layout tarball (or directory)
// spec ("PATH" or "PATH:TAG") to dst with every cosign tag and referrer the
// layout holds, verifies it there under opts.Policy, and only then sets the
// tag: dst's, else the layout's. A layout with several non-cosign tags needs
// PATH:TAG. With opts.Policy the layout's own signatures are verified (under
// dst's scope) before anything is written.
func FromTarball(ctx context.Context, c *registry.Client, spec string, dst registry.Reference, opts Options) (*Result, error) {
	path, tag := layout.Split(spec)
	ls, err := openLayout(ctx, path)
	if err != nil {
		return nil, err
	}
	store := ls.ReadOnlyStore
	if tag == "" {
		if tag, err = rootTag(ctx, store, path); err != nil {
			return nil, err
		}
	}
	root, err := store.Resolve(ctx, tag)
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: tag %q: %w", path, tag, err)
	}
	res := &Result{Source: path + ":" + tag, Digest: root.Digest}
	items, err := plan(ctx, ls, root, tag, opts.maxReferrers())
	if err != nil {
		return res, fmt.Errorf("copy %s: %w", res.Source, err)
	}
	if tag == DefaultTag && dst.Tag == "" {
		items[0].Tag = "" // the layout's placeholder tag is not carried over
	}
	// Verified before anything is written, under the destination's scope:
	// a tarball that does not verify leaves the destination untouched.
	if res.SourceVerification, err = verifySnapshot(ctx, ls, items, dst, root, opts); err != nil {
		return res, fmt.Errorf("copy %s: %w", res.Source, err)
	}
	loaded, err := bind(ctx, &artifact.Layout{Path: path, Store: store, Root: root}, root, opts, destination(dst, items[0].Tag))
	if err != nil {
		return res, err
	}
	var images imageCopier
	if opts.Images {
		list := loaded.Addon.Spec.Images
		images = func(ctx context.Context, repo registry.Reference) ([]ImageMapping, []Item, error) {
			return copyImages(ctx, c, list, fromLayout(ls), repo, opts.maxReferrers())
		}
	}
	return res, toRegistry(ctx, c, ls, items, dst, opts, res, images)
}

// newLayoutDir creates the OCI layout a tarball at path is written from: a
// temporary directory beside path, which the caller removes.
func newLayoutDir(ctx context.Context, path string) (string, *oci.Store, error) {
	dir, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".layout-*")
	if err != nil {
		return "", nil, fmt.Errorf("OCI layout tarball %s: %w", path, err)
	}
	store, err := oci.NewWithContext(ctx, dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("OCI layout tarball %s: %w", path, err)
	}
	return dir, store, nil
}

// exportItems copies every item of the artifact source (read from src) into
// store, tagging those that carry a tag; path is the tarball, for errors.
func exportItems(ctx context.Context, src graphSource, items []Item, store *oci.Store, source, path string) error {
	for _, it := range items {
		if err := oras.CopyGraph(ctx, src, store, it.Descriptor, oras.DefaultCopyGraphOptions); err != nil {
			return fmt.Errorf("copy %s (%s %s) to %s: %w", source, it.Kind, it.Descriptor.Digest, path, err)
		}
		if it.Tag != "" {
			if err := store.Tag(ctx, it.Descriptor, it.Tag); err != nil {
				return fmt.Errorf("OCI layout tarball %s: tag %s: %w", path, it.Tag, err)
			}
		}
	}
	return nil
}

// rootTag returns the one tag of the layout that is not a cosign or
// referrers-schema tag.
func rootTag(ctx context.Context, store *oci.ReadOnlyStore, path string) (string, error) {
	var tags []string
	err := store.Tags(ctx, "", func(page []string) error {
		for _, t := range page {
			if cosignTag.MatchString(t) {
				continue
			}
			if d, err := store.Resolve(ctx, t); err == nil && d.Annotations[AnnotationImage] != "" {
				continue // an image copied with --images
			}
			tags = append(tags, t)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("OCI layout %s: %w", path, err)
	}
	if len(tags) != 1 {
		return "", fmt.Errorf("OCI layout %s holds %d artifact tags (%s): name one as %s:TAG: %w",
			path, len(tags), strings.Join(tags, ", "), path, layout.ErrLayout)
	}
	return tags[0], nil
}

// assert the sources satisfy graphSource.
var (
	_ graphSource = remoteSource{}
	_ graphSource = layoutSource{}
)
