package relocate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
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
	// CarryTrustedRoot, with ToTarball, is a Sigstore trusted_root.json
	// stored unchanged in the tarball as TrustedRootFile (specs/artifact.md
	// section 10), for ExtractTrustedRoot on the other side of an air gap.
	CarryTrustedRoot string
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
	// TrustedRoot is the digest of the trusted root carried in the tarball
	// (Options.CarryTrustedRoot).
	TrustedRoot string `json:"trustedRoot,omitempty"`
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
	rs := remoteSource{c: c, ref: src, memo: newMemo()}
	items, err := plan(ctx, rs, root, src.Tag, opts.maxReferrers())
	if err != nil {
		return res, fmt.Errorf("copy %s: %w", src.WithDigest(root.Digest), err)
	}
	// What is verified is what plan listed, and only that is copied.
	if res.SourceVerification, err = verifySnapshot(ctx, rs, items, src, root, opts); err != nil {
		return res, fmt.Errorf("copy %s: at the source: %w", src.WithDigest(root.Digest), err)
	}
	loaded, err := bind(ctx, memoArtifact{artifact.Remote{Client: c, Ref: src}, rs.memo}, root, opts, src, destination(dst, src.Tag))
	if err != nil {
		return res, err
	}
	var images imageCopier
	if opts.Images {
		list := loaded.Addon.Spec.Images
		images = func(ctx context.Context, repo registry.Reference) ([]ImageMapping, []Item, error) {
			return copyImages(ctx, c, list, fromRegistry(c), repo, opts.maxReferrers())
		}
	}
	return res, toRegistry(ctx, c, rs, items, dst, opts, res, images)
}

// verifySnapshot verifies root under opts.Policy (nil: no verification)
// against the items plan listed from src, as the repository ref.
func verifySnapshot(ctx context.Context, src graphSource, items []Item, ref registry.Reference, root ocispec.Descriptor, opts Options) (*verify.Result, error) {
	if opts.Policy == nil {
		return nil, nil
	}
	return verify.Verify(ctx, verify.Target{Client: snapshot{src: src, items: items}, Ref: ref}, root, opts.Policy)
}

// imageCopier copies the add-on's images next to repo.
type imageCopier func(ctx context.Context, repo registry.Reference) ([]ImageMapping, []Item, error)

// toRegistry pushes items to dst's repository: every manifest by digest
// (cosign tags merged into the destination's, pushItem), then, after
// verification, the images and the relocation record, then the artifact's
// tag.
func toRegistry(ctx context.Context, c *registry.Client, src graphSource, items []Item, dst registry.Reference, opts Options, res *Result, images imageCopier) error {
	dst, err := stage(ctx, c, src, items, dst, opts, res, images)
	if err != nil {
		return err
	}
	return setTag(ctx, c, src, items[0].Descriptor, dst, res)
}

// stage is toRegistry but for the tag: it returns dst with the tag to set
// (dst's own, else the artifact item's).
func stage(ctx context.Context, c *registry.Client, src graphSource, items []Item, dst registry.Reference, opts Options, res *Result, images imageCopier) (registry.Reference, error) {
	root := items[0].Descriptor
	if dst.Digest != "" && dst.Digest != root.Digest {
		return dst, fmt.Errorf("copy %s to %s: %w: the destination pins another digest", res.Source, dst, errdef.ErrDigestMismatch)
	}
	if dst.Tag == "" {
		dst.Tag = items[0].Tag
	}
	repo := dst
	repo.Tag, repo.Digest = "", ""
	res.Destination, res.Items = repo.WithDigest(root.Digest).String(), items
	for _, it := range items {
		if err := pushItem(ctx, c, src, it, repo); err != nil {
			return dst, fmt.Errorf("copy %s (%s %s) to %s: %w", res.Source, it.Kind, it.Descriptor.Digest, repo, err)
		}
	}
	// Verified before the images are copied: a copy that fails here
	// leaves only untagged content behind, no image tags.
	if opts.Policy != nil {
		v, err := verify.Verify(ctx, verify.Target{Client: c, Ref: repo}, root, opts.Policy)
		res.Verification = v
		if err != nil {
			return dst, fmt.Errorf("copy %s: at the destination %s (left untagged): %w", res.Source, res.Destination, err)
		}
	}
	if images != nil {
		maps, imgItems, err := images(ctx, repo)
		if err != nil {
			return dst, fmt.Errorf("copy %s: %w", res.Source, err)
		}
		res.Images, res.Items = maps, append(res.Items, imgItems...)
		if len(maps) > 0 {
			d, err := pushRecord(ctx, c, repo, root, &Record{Images: maps})
			if err != nil {
				return dst, err
			}
			res.Record = &d
		}
	}
	return dst, nil
}

// setTag points dst's tag, if any, at root: the last step of a copy.
func setTag(ctx context.Context, c *registry.Client, src graphSource, root ocispec.Descriptor, dst registry.Reference, res *Result) error {
	if dst.Tag == "" {
		return nil
	}
	if _, err := c.Push(ctx, src, root, dst); err != nil {
		return fmt.Errorf("copy %s: tag %s: %w", res.Source, dst, err)
	}
	res.Tag = dst.Tag
	return nil
}

// pushItem pushes one item to repo by digest. A cosign tag is then merged
// into the destination's: the signatures and attestations under .sig and
// .att become the union of both (sign.MergeClassic), and any other cosign
// tag (.sbom) is set only where the destination has none. A mirror's
// existing signatures are never dropped or replaced.
func pushItem(ctx context.Context, c *registry.Client, src graphSource, it Item, repo registry.Reference) error {
	if _, err := c.Push(ctx, src, it.Descriptor, repo); err != nil {
		return err
	}
	if it.Kind != KindTag {
		return nil
	}
	if strings.HasSuffix(it.Tag, "."+sign.TagSuffixSignature) || strings.HasSuffix(it.Tag, "."+sign.TagSuffixAttestation) {
		_, err := sign.MergeClassic(ctx, sign.Target{Client: c, Ref: repo}, it.Tag, it.Descriptor, src)
		return err
	}
	to := repo
	to.Tag = it.Tag
	if _, err := c.Resolve(ctx, to); err == nil {
		return nil // kept as it is
	} else if !errors.Is(err, registry.ErrNotFound) {
		return err
	}
	_, err := c.Push(ctx, src, it.Descriptor, to)
	return err
}
