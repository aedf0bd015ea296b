package registry

import (
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/opencontainers/go-digest"
)

// ParseImageReference parses a container image reference the way docker and
// Kubernetes do — docker.io and library/ implied, "latest" when neither tag
// nor digest is given — into a Reference naming its registry and
// repository, tag and digest (both when the image has both).
func ParseImageReference(img string) (Reference, error) {
	r, err := name.ParseReference(img)
	if err != nil {
		return Reference{}, fmt.Errorf("%w %q: %w", ErrInvalidReference, img, err)
	}
	ref := Reference{Registry: r.Context().RegistryStr(), Repository: r.Context().RepositoryStr()}
	switch v := r.(type) {
	case name.Tag:
		ref.Tag = v.TagStr()
	case name.Digest:
		ref.Digest = digest.Digest(v.DigestStr())
		if t, err := name.NewTag(img[:len(img)-len(v.DigestStr())-1]); err == nil && t.TagStr() != "latest" {
			ref.Tag = t.TagStr()
		}
	}
	return ref, nil
}
