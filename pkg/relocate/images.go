package relocate

import (
	"context"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

// KindImage is a container image the add-on lists, copied with --images.
const KindImage = "image"

// AnnotationImage marks an image in a layout tarball: its value is the image
// as addon.yaml lists it, which is also its tag (org.opencontainers.image.ref.name).
const AnnotationImage = "dev.addonpack.relocate.image"

// imageName is img without tag or digest, as kustomize's images[].name matches it.
func imageName(img string) string {
	if i := strings.Index(img, "@"); i >= 0 {
		img = img[:i]
	}
	if i := strings.LastIndex(img, ":"); i > strings.LastIndex(img, "/") {
		img = img[:i]
	}
	return img
}

// imageRef parses an image reference as docker does (docker.io and library/
// implied) into a registry reference; a digest-pinned image keeps only its
// digest, which is what is copied.
func imageRef(img string) (registry.Reference, error) {
	ref, err := registry.ParseImageReference(img)
	if ref.Digest != "" {
		ref.Tag = ""
	}
	return ref, err
}

// ImageRepository is where an image goes when an add-on is copied to dst:
// "<dst registry>/<dst repository>/<image repository>", e.g.
// docker.io/hashicorp/http-echo for registry.internal/addons/hello becomes
// registry.internal/addons/hello/hashicorp/http-echo.
func ImageRepository(dst registry.Reference, image registry.Reference) registry.Reference {
	return registry.Reference{Registry: dst.Registry, Repository: dst.Repository + "/" + image.Repository}
}

// imageSource finds one image to copy: where to read it and its manifest.
type imageSource func(ctx context.Context, img string, ref registry.Reference) (graphSource, ocispec.Descriptor, error)

// fromRegistry resolves images at their own registries.
func fromRegistry(c *registry.Client) imageSource {
	return func(ctx context.Context, img string, ref registry.Reference) (graphSource, ocispec.Descriptor, error) {
		d, err := c.Resolve(ctx, ref)
		return remoteSource{c: c, ref: ref}, d, err
	}
}

// fromLayout finds images in a layout tarball by their AnnotationImage tag.
func fromLayout(ls layoutSource) imageSource {
	return func(ctx context.Context, img string, _ registry.Reference) (graphSource, ocispec.Descriptor, error) {
		d, ok, err := ls.resolveTag(ctx, img)
		if err == nil && !ok {
			err = fmt.Errorf("%s: image %s is not in the tarball (written without --images?): %w", ls.path, img, registry.ErrNotFound)
		}
		return ls, d, err
	}
}

// copyImages copies every image by digest into its ImageRepository under
// dst, tagged as listed, with the image's own signatures, attestations and
// referrers (cosign's tags and OCI referrers, as for the add-on), so that
// the mirror can be verified with the image publisher's keys.
func copyImages(ctx context.Context, c *registry.Client, images []string, from imageSource, dst registry.Reference, maxReferrers int) ([]ImageMapping, []Item, error) {
	var maps []ImageMapping
	var items []Item
	for _, img := range images {
		ref, gs, plan, err := imagePlan(ctx, img, from, maxReferrers)
		if err != nil {
			return nil, nil, err
		}
		to := ImageRepository(dst, ref)
		for _, it := range plan {
			target := to
			switch it.Kind {
			case KindImage:
				target.Tag = ref.Tag
			case KindTag:
				target.Tag = it.Tag
			}
			if _, err := c.Push(ctx, gs, it.Descriptor, target); err != nil {
				return nil, nil, fmt.Errorf("image %s (%s %s) to %s: %w", img, it.Kind, it.Descriptor.Digest, target, err)
			}
		}
		maps = append(maps, ImageMapping{Name: imageName(img), Source: img, NewName: to.Repo(), Digest: plan[0].Descriptor.Digest})
		items = append(items, plan...)
	}
	return maps, items, nil
}

// imagePlan finds image img and lists what copying it involves: the image
// (first, Kind KindImage, Tag img) and its cosign tags and referrers. An
// image the add-on pins by digest is copied only as that digest (a
// tarball's entry is found by name, and could be another).
func imagePlan(ctx context.Context, img string, from imageSource, maxReferrers int) (registry.Reference, graphSource, []Item, error) {
	ref, err := imageRef(img)
	if err != nil {
		return ref, nil, nil, err
	}
	gs, d, err := from(ctx, img, ref)
	if err != nil {
		return ref, nil, nil, fmt.Errorf("image %s: %w", img, err)
	}
	if ref.Digest != "" && d.Digest != ref.Digest {
		return ref, nil, nil, fmt.Errorf("image %s: %w: found %s", img, errdef.ErrDigestMismatch, d.Digest)
	}
	items, err := plan(ctx, gs, d, img, maxReferrers)
	if err != nil {
		return ref, nil, nil, fmt.Errorf("image %s: %w", img, err)
	}
	items[0].Kind = KindImage
	return ref, gs, items, nil
}

// exportImages copies every image into the layout store, tagged with the
// image as listed and marked with AnnotationImage, with its cosign tags
// (under their own names) and referrers.
func exportImages(ctx context.Context, c *registry.Client, images []string, store *oci.Store, maxReferrers int) ([]Item, error) {
	var items []Item
	for _, img := range images {
		_, gs, plan, err := imagePlan(ctx, img, fromRegistry(c), maxReferrers)
		if err != nil {
			return nil, err
		}
		for _, it := range plan {
			if err := oras.CopyGraph(ctx, gs, store, it.Descriptor, oras.DefaultCopyGraphOptions); err != nil {
				return nil, fmt.Errorf("image %s (%s %s): %w", img, it.Kind, it.Descriptor.Digest, err)
			}
			tagged := it.Descriptor
			switch it.Kind {
			case KindImage:
				tagged.Annotations = map[string]string{AnnotationImage: img}
			case KindTag:
			default:
				continue
			}
			if err := store.Tag(ctx, tagged, it.Tag); err != nil {
				return nil, fmt.Errorf("image %s: tag %s: %w", img, it.Tag, err)
			}
		}
		items = append(items, plan...)
	}
	return items, nil
}
