package prune

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
)

// Errors of planning.
var (
	// ErrOptions reports options that do not say what to keep.
	ErrOptions = errdef.New(errdef.ErrInvalidArgument, "invalid prune options")
	// ErrTooMany reports a repository with more tags or referrers than the
	// limits allow: a plan that cannot see everything is not made.
	ErrTooMany = errdef.New(errdef.ErrInvalid, "too many tags or referrers")
)

// Registry is what prune needs of a registry; *registry.Client is one.
type Registry interface {
	semver.TagLister
	Resolve(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, error)
	Referrers(ctx context.Context, repo registry.Reference, subject ocispec.Descriptor, artifactType string, max int) ([]ocispec.Descriptor, bool, error)
	// FetchManifest reads an image index of a needed manifest, for what it lists.
	FetchManifest(ctx context.Context, repo registry.Reference, desc ocispec.Descriptor) ([]byte, error)
	Delete(ctx context.Context, ref registry.Reference) error
}

// Options say what to keep.
type Options struct {
	// Keep is how many of the newest semver releases are kept.
	Keep int
	// KeepRange keeps the releases it matches as well (e.g. ">=1.0.0 <2.0.0").
	KeepRange string
	// Tags are tags to delete by name, semver or not, whatever Keep says.
	Tags []string
	// Protect are digests never deleted (a lock file's pins, LoadPins).
	Protect []digest.Digest
	// MaxTags and MaxReferrers bound what is read (defaults 10,000 and
	// 1,000 referrers, or manifests an index lists, of one manifest);
	// MaxManifests bounds the manifests needed and planned together
	// (default 20,000). More is ErrTooMany, not a partial plan.
	MaxTags, MaxReferrers, MaxManifests int
}

// Kinds of items.
const (
	KindRelease  = "release"  // a release's manifest, with its tags
	KindUntag    = "untag"    // a release tag whose digest is kept: the tag alone
	KindTag      = "tag"      // a cosign classic tag's manifest: sha256-<hex>.sig/.att/.sbom
	KindReferrer = "referrer" // an OCI referrer (Sigstore bundle, SBOM, ...)
	KindIndex    = "index"    // the referrers tag schema's index, sha256-<hex>
)

// Item is one deletion: a manifest by digest or, for KindUntag, one tag.
type Item struct {
	Kind   string        `json:"kind"`
	Digest digest.Digest `json:"digest"`
	// Tags go with it: the registry removes the tags of a deleted manifest.
	Tags []string `json:"tags,omitempty"`
	// Subject is the manifest it vouches for (tags, referrers, indexes).
	Subject      digest.Digest `json:"subject,omitempty"`
	ArtifactType string        `json:"artifactType,omitempty"`
	// Release is the release tag whose deletion brings it along.
	Release string `json:"release,omitempty"`
	// Orphan marks what vouches for a manifest that is already gone (left
	// by an interrupted prune or deleted by other means).
	Orphan bool `json:"orphan,omitempty"`
}

// String is one line of a plan, as prune prints it: kind, digest, tags,
// and what it vouches for.
func (it Item) String() string {
	s := fmt.Sprintf("%-8s %s", it.Kind, it.Digest)
	if len(it.Tags) > 0 {
		s += " " + strings.Join(it.Tags, ",")
	}
	if it.ArtifactType != "" {
		s += " (" + it.ArtifactType + ")"
	}
	switch {
	case it.Orphan:
		s += "  left over: its subject is gone"
	case it.Kind != KindRelease && it.Kind != KindUntag:
		s += "  of release " + it.Release
	}
	return s
}

// Kept is a tag that stays, and why.
type Kept struct {
	Tag    string        `json:"tag"`
	Digest digest.Digest `json:"digest"`
	Reason string        `json:"reason"`
}

// Skip is something that would have gone but stays, and why.
type Skip struct {
	// Kind is the Item kind it would have been deleted as.
	Kind    string        `json:"kind,omitempty"`
	Digest  digest.Digest `json:"digest"`
	Tag     string        `json:"tag,omitempty"`
	Release string        `json:"release,omitempty"`
	// NeededBy is the kept tag or pin it is needed by (specs/prune.md
	// section 2), when that is why it stays.
	NeededBy string `json:"neededBy,omitempty"`
	Reason   string `json:"reason"`
}

// Plan is what Execute deletes, in order.
type Plan struct {
	Repository string `json:"repository"`
	Keep       []Kept `json:"keep"`
	Delete     []Item `json:"delete"`
	Skipped    []Skip `json:"skipped,omitempty"`
}

func (o Options) withDefaults() Options {
	if o.MaxTags <= 0 {
		o.MaxTags = 10000
	}
	if o.MaxReferrers <= 0 {
		o.MaxReferrers = 1000
	}
	if o.MaxManifests <= 0 {
		o.MaxManifests = 20000
	}
	return o
}

func (o Options) check() error {
	if o.Keep < 0 {
		return fmt.Errorf("%w: --keep %d: want 1 or more", ErrOptions, o.Keep)
	}
	if o.Keep == 0 && o.KeepRange == "" && len(o.Tags) == 0 {
		return fmt.Errorf("%w: say what to keep (--keep N, --keep-range RANGE) or which tags to delete (--tag)", ErrOptions)
	}
	for _, t := range o.Tags {
		if _, ok := vouchSubject(t); ok {
			return fmt.Errorf("%w: --tag %s names a signature, attestation or referrers tag: they go with their subject", ErrOptions, t)
		}
	}
	return nil
}

// NewPlan reads repo and decides what to delete. It changes nothing.
func NewPlan(ctx context.Context, r Registry, repo registry.Reference, opts Options) (*Plan, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	repo.Tag, repo.Digest = "", ""
	p := &planner{r: r, repo: repo, opts: opts, plan: &Plan{Repository: repo.Repo(), Keep: []Kept{}, Delete: []Item{}},
		known: map[digest.Digest]bool{}, planned: map[digest.Digest]bool{},
		needed: map[digest.Digest]need{}, links: map[digest.Digest][]link{}}
	tags, err := r.Tags(ctx, repo, registry.TagLimits{MaxTags: opts.MaxTags})
	if err != nil {
		return nil, err
	}
	slices.Sort(tags)
	p.tags = map[string]bool{}
	for _, t := range tags {
		p.tags[t] = true
	}
	doomed, roots, err := p.decide(ctx, tags)
	if err != nil {
		return nil, err
	}
	// What every kept tag and pin needs is known before anything is
	// planned: a release's vouching tags prove nothing about ownership.
	if err := p.reach(ctx, roots); err != nil {
		return nil, err
	}
	for _, g := range p.group(doomed) {
		if err := p.release(ctx, g); err != nil {
			return nil, err
		}
	}
	if err := p.orphans(ctx, tags); err != nil {
		return nil, err
	}
	return p.plan, nil
}
