package mirror

import (
	"context"
	"io"

	"github.com/addonpack/addonpack/pkg/semver"
)

// selectTags returns the tags of tags (a repository's, or a tarball's
// releases of one repository) that s selects, ascending: those its range
// matches (the pre-release rule of specs/stack.md section 2), and with a
// limit only the highest Limit precedences. Tags of equal precedence count
// once and are all kept — semver.Pick's group of equals is taken whole —
// so the cut never falls between them (no coin toss).
func selectTags(tags []string, s Source) []string {
	matched := semver.FromTags(tags).Matching(s.Versions)
	if s.Limit > 0 {
		start := len(matched)
		for n := 0; n < s.Limit && start > 0; n++ {
			_, tied := semver.Pick(matched[:start], false)
			start -= len(tied)
		}
		matched = matched[start:]
	}
	out := make([]string, len(matched))
	for i, t := range matched {
		out[i] = t.Tag
	}
	return out
}

// selectRepository lists s's repository (semver.ListRepository, bounded by
// the registry's tag limits), warns on w about tags the range would match
// but for a leading "v", and returns the tags s selects.
func selectRepository(ctx context.Context, l semver.TagLister, s Source, w io.Writer) ([]string, error) {
	listing, err := semver.ListRepository(ctx, l, s.Repository, semver.RepoOptions{Range: &s.Versions})
	if err != nil {
		return nil, err
	}
	if w != nil {
		semver.WarnIgnored(w, listing.Repository, listing.Ignored)
	}
	tags := make([]string, len(listing.Versions))
	for i, v := range listing.Versions {
		tags[i] = v.Tag
	}
	return selectTags(tags, s), nil
}
