package relocate

import (
	"context"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// DefaultMaxReferrers bounds the referrers listed per manifest.
const DefaultMaxReferrers = 256

// Options tune a copy.
type Options struct {
	// Policy, when set, is verified at a registry source before anything is
	// written, and at a registry destination before its tag is set. nil
	// copies without verifying.
	Policy *verify.Policy
	// MaxReferrers bounds the referrers listed per manifest (more is
	// ErrTooMany); 0 means DefaultMaxReferrers.
	MaxReferrers int
	// Images also copies every container image the add-on lists
	// (spec.images), by digest, to ImageRepository under the destination,
	// and stores a relocation Record there (an OCI referrer of the add-on)
	// from which render rewrites image references (Record.Rewrite).
	Images bool
	// Name is the add-on the source and destination repositories hold
	// when their last path element is not its name (verify.Claim).
	Name string
}

func (o Options) maxReferrers() int {
	if o.MaxReferrers <= 0 {
		return DefaultMaxReferrers
	}
	return o.MaxReferrers
}

// Result says what was copied and how it verified.
type Result struct {
	// Source and Destination are references or tarball paths.
	Source      string        `json:"source"`
	Destination string        `json:"destination"`
	Digest      digest.Digest `json:"digest"`
	// Tag is the destination tag of the artifact ("" when none was set).
	Tag   string `json:"tag,omitempty"`
	Items []Item `json:"copied"`
	// Images and Record describe the images copied with Options.Images and
	// the relocation record stored for them (registry destinations only).
	Images []ImageMapping      `json:"images,omitempty"`
	Record *ocispec.Descriptor `json:"relocationRecord,omitempty"`
	// SourceVerification and Verification are the policy's verdicts at the
	// source and at the destination (nil when not checked).
	SourceVerification *verify.Result `json:"sourceVerification,omitempty"`
	Verification       *verify.Result `json:"verification,omitempty"`
}

// Copy copies the artifact src (resolved once) to dst with every signature,
// attestation and referrer. dst's tag defaults to src's; a digest in dst
// must equal the artifact's. With opts.Policy the source is verified first
// and the destination before its tag is set; a failure is a
// verify.ErrVerification error and leaves the destination tag untouched.
func Copy(ctx context.Context, c *registry.Client, src, dst registry.Reference, opts Options) (*Result, error) {
	root, err := c.Resolve(ctx, src)
	if err != nil {
		return nil, c.ExplainNotFound(ctx, src, err)
	}
	res := &Result{Source: src.String(), Digest: root.Digest}
	if opts.Policy != nil {
		if res.SourceVerification, err = verify.Verify(ctx, verify.Target{Client: c, Ref: src}, root, opts.Policy); err != nil {
			return res, fmt.Errorf("copy %s: at the source: %w", src.WithDigest(root.Digest), err)
		}
	}
	loaded, err := bind(ctx, artifact.Remote{Client: c, Ref: src}, root, opts, src, destination(dst, src.Tag))
	if err != nil {
		return res, err
	}
	items, err := plan(ctx, remoteSource{c: c, ref: src}, root, src.Tag, opts.maxReferrers())
	if err != nil {
		return res, fmt.Errorf("copy %s: %w", src.WithDigest(root.Digest), err)
	}
	var images imageCopier
	if opts.Images {
		list := loaded.Addon.Spec.Images
		images = func(ctx context.Context, repo registry.Reference) ([]ImageMapping, []Item, error) {
			return copyImages(ctx, c, list, fromRegistry(c), repo, opts.maxReferrers())
		}
	}
	return res, toRegistry(ctx, c, remoteSource{c: c, ref: src}, items, dst, opts, res, images)
}

// imageCopier copies the add-on's images next to repo.
type imageCopier func(ctx context.Context, repo registry.Reference) ([]ImageMapping, []Item, error)

// toRegistry pushes items to dst's repository: every manifest by digest
// (cosign tags under their tags), then, after verification, the images and
// the relocation record, then the artifact's tag.
func toRegistry(ctx context.Context, c *registry.Client, src graphSource, items []Item, dst registry.Reference, opts Options, res *Result, images imageCopier) error {
	root := items[0].Descriptor
	if dst.Digest != "" && dst.Digest != root.Digest {
		return fmt.Errorf("copy %s to %s: %w: the destination pins another digest", res.Source, dst, errdef.ErrDigestMismatch)
	}
	if dst.Tag == "" {
		dst.Tag = items[0].Tag
	}
	repo := dst
	repo.Tag, repo.Digest = "", ""
	res.Destination, res.Items = repo.WithDigest(root.Digest).String(), items
	for _, it := range items {
		to := repo
		if it.Kind == KindTag {
			to.Tag = it.Tag
		}
		if _, err := c.Push(ctx, src, it.Descriptor, to); err != nil {
			return fmt.Errorf("copy %s (%s %s) to %s: %w", res.Source, it.Kind, it.Descriptor.Digest, to, err)
		}
	}
	// Verified before the images are copied: a copy that fails here
	// leaves only untagged content behind, no image tags.
	if opts.Policy != nil {
		v, err := verify.Verify(ctx, verify.Target{Client: c, Ref: repo}, root, opts.Policy)
		res.Verification = v
		if err != nil {
			return fmt.Errorf("copy %s: at the destination %s (left untagged): %w", res.Source, res.Destination, err)
		}
	}
	if images != nil {
		maps, imgItems, err := images(ctx, repo)
		if err != nil {
			return fmt.Errorf("copy %s: %w", res.Source, err)
		}
		res.Images, res.Items = maps, append(res.Items, imgItems...)
		if len(maps) > 0 {
			d, err := pushRecord(ctx, c, repo, root, &Record{Images: maps})
			if err != nil {
				return err
			}
			res.Record = &d
		}
	}
	if dst.Tag != "" {
		if _, err := c.Push(ctx, src, root, dst); err != nil {
			return fmt.Errorf("copy %s: tag %s: %w", res.Source, dst, err)
		}
		res.Tag = dst.Tag
	}
	return nil
}
