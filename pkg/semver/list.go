package semver

import (
	"fmt"
	"slices"
	"strings"
)

// Tagged is a version and the tag that names it.
type Tagged struct {
	Tag     string
	Version Version
}

// List is the semantic-version view of a repository's tags.
type List struct {
	// Versions are the tags that name versions, ascending by precedence,
	// equal precedence by tag.
	Versions []Tagged
	// near are tags that are versions but for a leading "v" (section 1.2).
	near []Tagged
}

// FromTags reads a tag list; tags that name no version are left out.
func FromTags(tags []string) List {
	var l List
	for _, t := range tags {
		if v, err := FromTag(t); err == nil {
			l.Versions = append(l.Versions, Tagged{t, v})
		} else if len(t) > 1 && (t[0] == 'v' || t[0] == 'V') {
			if v, err := FromTag(t[1:]); err == nil {
				l.near = append(l.near, Tagged{t, v})
			}
		}
	}
	slices.SortFunc(l.Versions, func(a, b Tagged) int {
		if c := a.Version.Compare(b.Version); c != 0 {
			return c
		}
		return strings.Compare(a.Tag, b.Tag)
	})
	l.Versions = slices.CompactFunc(l.Versions, func(a, b Tagged) bool { return a.Tag == b.Tag })
	return l
}

// Matching returns the versions r matches, ascending.
func (l List) Matching(r Range) []Tagged {
	var out []Tagged
	for _, t := range l.Versions {
		if r.Match(t.Version) {
			out = append(out, t)
		}
	}
	return out
}

// Near returns the tags r would have matched but for a leading "v", for the
// warning of specs/stack.md section 1.2.
func (l List) Near(r Range) []string {
	var out []string
	for _, t := range l.near {
		if r.Match(t.Version) {
			out = append(out, t.Tag)
		}
	}
	slices.Sort(out)
	return out
}

// Select returns the highest version r matches (the lowest with lowest). It
// fails with ErrNoMatch naming the range and the versions there are, and with
// ErrAmbiguous when several tags share the chosen precedence (Pick).
func (l List) Select(r Range, lowest bool) (Tagged, error) {
	m := l.Matching(r)
	if len(m) == 0 {
		return Tagged{}, fmt.Errorf("%w %q: %s", ErrNoMatch, r.String(), l.Available())
	}
	pick, tied := Pick(m, lowest)
	if len(tied) > 1 {
		return Tagged{}, fmt.Errorf("%w: tags %s have equal precedence for %q; name one with a digest or narrow the range", ErrAmbiguous, strings.Join(tied, ", "), r.String())
	}
	return pick, nil
}

// Pick is the one choice rule of specs/stack.md: the highest of candidates
// (ascending, as a List keeps them, and not empty) — the lowest with lowest
// — and no coin toss: when several tags share its precedence (build metadata
// aside), tied lists them all and the caller refuses to choose.
func Pick(candidates []Tagged, lowest bool) (pick Tagged, tied []string) {
	pick = candidates[len(candidates)-1]
	if lowest {
		pick = candidates[0]
	}
	for _, t := range candidates {
		if t.Version.Compare(pick.Version) == 0 {
			tied = append(tied, t.Tag)
		}
	}
	return pick, tied
}

// maxListed is how many available versions an error names.
const maxListed = 10

// Available describes the versions there are for an error message: the
// highest first, at most ten.
func (l List) Available() string {
	n := len(l.Versions)
	if n == 0 {
		return "the repository has no version tags"
	}
	var names []string
	for i := n - 1; i >= 0 && len(names) < maxListed; i-- {
		names = append(names, l.Versions[i].Tag)
	}
	s := "available: " + strings.Join(names, ", ")
	if n > maxListed {
		s += fmt.Sprintf(" … and %d more", n-maxListed)
	}
	return s
}
