package sbom

import (
	"context"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/addonpack/addonpack/pkg/registry"
)

// Image states.
const (
	ImagePinned     = "pinned"     // the reference carries a digest: kept as it is
	ImageResolved   = "resolved"   // a tag, resolved to this digest at push time
	ImageUnresolved = "unresolved" // a tag whose registry did not answer with a digest
)

// Image is one image of spec.images.
type Image struct {
	// Reference is the image as addon.yaml lists it.
	Reference string        `json:"reference"`
	Digest    digest.Digest `json:"digest,omitempty"`
	Status    string        `json:"status"`
	// Error says why an image is unresolved.
	Error string `json:"error,omitempty"`
}

// Resolver resolves an image reference to its manifest; *registry.Client is one.
type Resolver interface {
	Resolve(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, error)
}

// DefaultResolveTimeout bounds all image lookups of one add-on together.
const DefaultResolveTimeout = 10 * time.Second

// resolveConcurrency bounds the lookups in flight.
const resolveConcurrency = 4

// ResolveImages describes each image: pinned digests are kept without a
// lookup; tags are resolved through r (nil: none is), all within timeout
// (0: DefaultResolveTimeout). A lookup that fails or runs out of time leaves
// the image unresolved, with the reason: an SBOM lists every image.
func ResolveImages(ctx context.Context, r Resolver, images []string, timeout time.Duration) []Image {
	if timeout <= 0 {
		timeout = DefaultResolveTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := make([]Image, len(images))
	var g errgroup.Group
	g.SetLimit(resolveConcurrency)
	for i, img := range images {
		out[i] = Image{Reference: img, Status: ImageUnresolved}
		ref, err := registry.ParseImageReference(img)
		switch {
		case err != nil:
			out[i].Error = err.Error()
			continue
		case ref.Digest != "":
			out[i].Digest, out[i].Status = ref.Digest, ImagePinned
			continue
		case r == nil:
			out[i].Error = "not looked up"
			continue
		}
		g.Go(func() error {
			if err := ctx.Err(); err != nil { // the timeout passed while it waited
				out[i].Error = err.Error()
				return nil
			}
			d, err := r.Resolve(ctx, ref)
			if err != nil {
				out[i].Error = err.Error()
				return nil
			}
			out[i].Digest, out[i].Status = d.Digest, ImageResolved
			return nil
		})
	}
	g.Wait()
	return out
}
