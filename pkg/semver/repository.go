// The registry side of versions: a repository's tags read as versions, a
// range resolved to one tag, and that tag pinned to a digest (specs/stack.md).

package semver

import (
	"context"
	"errors"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

// TagLister lists a repository's tags; *registry.Client is one.
type TagLister interface {
	Tags(ctx context.Context, repo registry.Reference, lim registry.TagLimits) ([]string, error)
}

// RepoOptions shape a listing or a resolution.
type RepoOptions struct {
	// Range keeps only the versions it matches; nil keeps all.
	Range *Range
	// Lowest selects the lowest matching version instead of the highest.
	Lowest bool
	// Limits bound the tag list; zero fields take registry's defaults.
	Limits registry.TagLimits
}

// Listing is a repository's versions, ascending.
type Listing struct {
	Repository string          `json:"repository"`
	Range      string          `json:"range,omitempty"`
	Versions   []ListedVersion `json:"versions"`
	// Ignored are tags the range would have matched but for a leading "v".
	Ignored []string `json:"ignored,omitempty"`
}

// WriteText writes the tags, lowest version first, one per line.
func (l Listing) WriteText(w io.Writer) error {
	for _, v := range l.Versions {
		if _, err := fmt.Fprintln(w, v.Tag); err != nil {
			return err
		}
	}
	return nil
}

// ListedVersion is one tag that names a version.
type ListedVersion struct {
	Tag     string `json:"tag"`
	Version string `json:"version"`
}

// ListRepository reads repo's tags and returns its versions (those RepoOptions.Range
// matches, when set) in ascending precedence.
func ListRepository(ctx context.Context, l TagLister, repo registry.Reference, opts RepoOptions) (Listing, error) {
	all, err := read(ctx, l, repo, opts)
	if err != nil {
		return Listing{}, err
	}
	out := Listing{Repository: repo.Repo(), Versions: []ListedVersion{}}
	tagged := all.Versions
	if opts.Range != nil {
		out.Range = opts.Range.String()
		tagged = all.Matching(*opts.Range)
		out.Ignored = all.Near(*opts.Range)
	}
	for _, t := range tagged {
		out.Versions = append(out.Versions, ListedVersion{Tag: t.Tag, Version: t.Version.String()})
	}
	return out, nil
}

// Resolved is the tag a range resolved to.
type Resolved struct {
	// Ref is the repository with the chosen tag (and, from Pin, the digest
	// the tag resolved to).
	Ref     registry.Reference
	Version Version
	// Ignored are tags the range would have matched but for a leading "v":
	// the caller warns about them.
	Ignored []string
}

// ResolveRepository reads repo's tags and picks the highest version r matches (the
// lowest with RepoOptions.Lowest). Errors wrap ErrNoMatch or
// ErrAmbiguous and name the repository.
func ResolveRepository(ctx context.Context, l TagLister, repo registry.Reference, r Range, opts RepoOptions) (Resolved, error) {
	all, err := read(ctx, l, repo, opts)
	if err != nil {
		return Resolved{}, err
	}
	pick, err := all.Select(r, opts.Lowest)
	if err != nil {
		return Resolved{}, fmt.Errorf("%s: %w", repo.Repo(), err)
	}
	ref := repo
	ref.Tag, ref.Digest = pick.Tag, ""
	return Resolved{Ref: ref, Version: pick.Version, Ignored: all.Near(r)}, nil
}

// ErrNotRepository is matched when a range is given with a reference that
// already names its artifact: a tag or a digest and a range cannot both say
// which version to use.
var ErrNotRepository = errdef.New(errdef.ErrInvalidArgument, "a version range needs a repository without a tag or digest")

// CheckRepository refuses, with ErrNotRepository, a repo that names a tag
// or digest to go with the range r; ResolveRepository ignores them, so a caller that
// resolves before pinning checks this first.
func CheckRepository(repo registry.Reference, r Range) error {
	if repo.Tag != "" || repo.Digest != "" {
		return fmt.Errorf("%s: %w (the range %q chooses the version)", repo, ErrNotRepository, r.String())
	}
	return nil
}

// Registry lists a repository's tags and resolves a reference to a manifest
// descriptor; *registry.Client is one.
type Registry interface {
	TagLister
	Resolve(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, error)
}

// Pin resolves the range r on repo (a repository without a tag or digest)
// to one tag (ResolveRepository) and that tag, once, to a manifest digest: the
// returned Ref is REPO:TAG@DIGEST (specs/stack.md section 2.5). A consumer
// opens that reference: it fetches by the digest, the tag must still resolve
// to it (specs/artifact.md section 11.1) — a tag moved meanwhile fails
// rather than being followed — and the tag's version is the one the signed
// add-on must carry (section 11.6).
func Pin(ctx context.Context, c Registry, repo registry.Reference, r Range, opts RepoOptions) (Resolved, error) {
	if err := CheckRepository(repo, r); err != nil {
		return Resolved{}, err
	}
	res, err := ResolveRepository(ctx, c, repo, r, opts)
	if err != nil {
		return Resolved{}, err
	}
	d, err := c.Resolve(ctx, res.Ref)
	if err != nil {
		return Resolved{}, fmt.Errorf("%s (the highest version %q matches): %w", res.Ref, r.String(), err)
	}
	res.Ref.Digest = d.Digest
	return res, nil
}

// PinOrNone is Pin for a caller that accepts there being no version yet (a
// first release): when the repository's tags hold no version r matches, or
// the repository does not exist (its tag list is not found), it returns
// none, why. Every other failure — an unreachable or denying registry,
// ambiguous tags, a tag that no longer resolves — is returned as an error.
func PinOrNone(ctx context.Context, c Registry, repo registry.Reference, r Range, opts RepoOptions) (res Resolved, none string, err error) {
	if err := CheckRepository(repo, r); err != nil {
		return Resolved{}, "", err // before ResolveRepository, which ignores a tag
	}
	if _, err := ResolveRepository(ctx, c, repo, r, opts); errors.Is(err, ErrNoMatch) || errors.Is(err, registry.ErrNotFound) {
		return Resolved{}, err.Error(), nil
	}
	res, err = Pin(ctx, c, repo, r, opts)
	return res, "", err
}

// WarnIgnored writes the warning of specs/stack.md section 1.2 for each tag.
func WarnIgnored(w io.Writer, repo string, tags []string) {
	for _, t := range tags {
		fmt.Fprintf(w, "Warning: %s: ignoring tag %s: not a strict semantic version (write %s)\n", repo, t, t[1:])
	}
}

// Announce writes what a consumer says about a pinned range on stderr: the
// warnings of WarnIgnored, then "resolved REPO:TAG@DIGEST".
func Announce(w io.Writer, res Resolved) {
	WarnIgnored(w, res.Ref.Repo(), res.Ignored)
	fmt.Fprintf(w, "resolved %s\n", res.Ref)
}

func read(ctx context.Context, l TagLister, repo registry.Reference, opts RepoOptions) (List, error) {
	tags, err := l.Tags(ctx, repo, opts.Limits)
	if err != nil {
		return List{}, err
	}
	return FromTags(tags), nil
}
