package relocate

import (
	"context"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/sign"
)

// Kinds of copied items.
const (
	KindArtifact = "artifact" // the add-on manifest itself
	KindTag      = "tag"      // a cosign classic tag: sha256-<hex>.sig, .att, .sbom
	KindReferrer = "referrer" // an OCI referrer (Sigstore bundle, SBOM, ...)
)

// CosignSuffixes are the cosign tag suffixes copied for every manifest.
var CosignSuffixes = []string{sign.TagSuffixSignature, sign.TagSuffixAttestation, "sbom"}

// Item is one manifest copied, with everything it references.
type Item struct {
	Kind string `json:"kind"`
	// Tag is the tag it is copied under (cosign tags, and the artifact's tag).
	Tag string `json:"tag,omitempty"`
	// Subject is the manifest it signs or refers to (tags and referrers).
	Subject    digest.Digest      `json:"subject,omitempty"`
	Descriptor ocispec.Descriptor `json:"descriptor"`
}

// ErrTooMany reports a source with more referrers or tags than the limits allow.
var ErrTooMany = errdef.New(errdef.ErrInvalid, "too many referrers")

// maxDepth bounds how deep referrers of referrers are followed.
const maxDepth = 4

// plan lists what to copy: root, then for root and every referrer found
// (breadth first, to maxDepth) its cosign tags and its referrers.
func plan(ctx context.Context, src graphSource, root ocispec.Descriptor, rootTag string, maxReferrers int) ([]Item, error) {
	items := []Item{{Kind: KindArtifact, Tag: rootTag, Descriptor: root}}
	seen := map[digest.Digest]bool{root.Digest: true}
	level := []ocispec.Descriptor{root}
	for depth := 0; depth < maxDepth && len(level) > 0; depth++ {
		var next []ocispec.Descriptor
		for _, subj := range level {
			for _, suffix := range CosignSuffixes {
				tag := sign.CosignTag(subj, suffix)
				d, ok, err := src.resolveTag(ctx, tag)
				if err != nil {
					return nil, err
				}
				if ok {
					items = append(items, Item{Kind: KindTag, Tag: tag, Subject: subj.Digest, Descriptor: d})
				}
			}
			refs, err := src.referrers(ctx, subj, maxReferrers)
			if err != nil {
				return nil, err
			}
			for _, r := range refs {
				if seen[r.Digest] {
					continue
				}
				seen[r.Digest] = true
				items = append(items, Item{Kind: KindReferrer, Subject: subj.Digest, Descriptor: r})
				next = append(next, r)
			}
			if len(items) > 4*maxReferrers {
				return nil, fmt.Errorf("%w: more than %d manifests to copy for %s", ErrTooMany, 4*maxReferrers, root.Digest)
			}
		}
		level = next
	}
	return items, nil
}
