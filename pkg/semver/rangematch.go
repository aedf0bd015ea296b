package semver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	msv "github.com/Masterminds/semver/v3"
)

// MaxRangeLength bounds a range's text (specs/stack.md section 2).
const MaxRangeLength = 256

// Range is a version range: Masterminds semver constraints narrowed by npm's
// pre-release rule (specs/stack.md section 2).
type Range struct {
	text string
	alts []alternative
}

// alternative is one ||-separated part of a range with the cores
// (MAJOR.MINOR.PATCH) of its pre-release comparators.
type alternative struct {
	c        *msv.Constraints
	preCores [][3]uint64
}

// preComparator finds the versions with a pre-release inside an alternative
// that Masterminds accepted: a version directly followed by "-IDENT". Hyphen
// ranges ("1.2 - 1.4") have spaces around their dash and do not match.
var preComparator = regexp.MustCompile(`(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*`)

// ParseRange reads s as a range.
func ParseRange(s string) (Range, error) {
	if strings.TrimSpace(s) == "" {
		return Range{}, fmt.Errorf("%q: %w: empty", s, ErrRange)
	}
	if len(s) > MaxRangeLength {
		return Range{}, fmt.Errorf("%.40q…: %w: longer than %d characters", s, ErrRange, MaxRangeLength)
	}
	r := Range{text: s}
	for _, part := range strings.Split(s, "||") {
		c, err := msv.NewConstraint(part)
		if err != nil {
			return Range{}, fmt.Errorf("%q: %w: %w", s, ErrRange, err)
		}
		alt := alternative{c: c}
		for _, m := range preComparator.FindAllStringSubmatch(part, -1) {
			alt.preCores = append(alt.preCores, [3]uint64{num(m[1]), num(m[2]), num(m[3])})
		}
		r.alts = append(r.alts, alt)
	}
	return r, nil
}

// num reads one numeric part of a comparator; a missing or wildcard part is 0,
// as Masterminds reads "1.2-rc.1" as "1.2.0-rc.1".
func num(s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// String returns the range as written.
func (r Range) String() string { return r.text }

// Match reports whether v satisfies r. A pre-release satisfies an alternative
// only when the alternative names a pre-release of the same
// MAJOR.MINOR.PATCH.
func (r Range) Match(v Version) bool {
	for _, alt := range r.alts {
		if v.Prerelease() != "" && !alt.admits(v.core()) {
			continue
		}
		if alt.c.Check(v.v) {
			return true
		}
	}
	return false
}

func (a alternative) admits(core [3]uint64) bool {
	for _, c := range a.preCores {
		if c == core {
			return true
		}
	}
	return false
}
