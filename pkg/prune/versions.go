package prune

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
)

// release is a tag that is a strict semantic version ("_" stands for "+",
// which OCI tags cannot hold).
type release struct {
	tag string
	v   *semver.Version
}

// releasesOf returns the tags that are strict semver versions, newest first.
func releasesOf(tags []string) []release {
	var out []release
	for _, t := range tags {
		v, err := semver.StrictNewVersion(strings.ReplaceAll(t, "_", "+"))
		if err != nil {
			continue
		}
		out = append(out, release{tag: t, v: v})
	}
	slices.SortStableFunc(out, func(a, b release) int { return b.v.Compare(a.v) })
	return out
}

// versionRange is a --keep-range constraint.
type versionRange struct{ c *semver.Constraints }

func parseRange(s string) (*versionRange, error) {
	c, err := semver.NewConstraint(s)
	if err != nil {
		return nil, fmt.Errorf("%w: --keep-range %q: %w", ErrOptions, s, err)
	}
	return &versionRange{c}, nil
}

func (r *versionRange) contains(rel release) bool { return r != nil && r.c.Check(rel.v) }

// vouchTag matches the tags that vouch for a manifest rather than name a
// release: cosign's sha256-<hex>.sig/.att/.sbom and the OCI referrers tag
// schema's sha256-<hex>.
var vouchTag = regexp.MustCompile(`^(sha256|sha512)-([a-f0-9]{64}|[a-f0-9]{128})(\.(sig|att|sbom))?$`)

// vouchSubject returns the digest a vouching tag is about.
func vouchSubject(tag string) (digest.Digest, bool) {
	m := vouchTag.FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}
	return digest.NewDigestFromEncoded(digest.Algorithm(m[1]), m[2]), true
}
