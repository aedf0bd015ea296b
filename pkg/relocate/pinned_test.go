package relocate

import (
	"context"
	"errors"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

// TestCopyImagesPinnedDigest: an image the add-on pins by digest is copied
// only as that digest; a source (a tarball entry found by name) holding
// another is refused before anything is pushed.
func TestCopyImagesPinnedDigest(t *testing.T) {
	pinned := digest.FromString("the image the add-on was built with")
	other := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("another image"), Size: 1}
	from := func(context.Context, string, registry.Reference) (graphSource, ocispec.Descriptor, error) {
		return nil, other, nil
	}
	dst := registry.Reference{Registry: "registry.internal", Repository: "mirror/hello"}
	_, _, err := copyImages(context.Background(), nil, []string{"docker.io/library/echo@" + pinned.String()}, from, dst, 10)
	if !errors.Is(err, errdef.ErrDigestMismatch) {
		t.Fatalf("got %v, want ErrDigestMismatch", err)
	}
}
