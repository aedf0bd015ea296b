package prune

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/semver"
)

// release is a tag that is a strict semantic version (pkg/semver: "_"
// stands for "+", which OCI tags cannot hold).
type release struct {
	tag string
	v   semver.Version
}

// releasesOf returns the tags that are strict semver versions, newest first
// (equal precedence, e.g. differing build metadata: by tag, descending).
func releasesOf(tags []string) []release {
	var out []release
	for _, t := range semver.FromTags(tags).Versions {
		out = append(out, release{tag: t.Tag, v: t.Version})
	}
	slices.Reverse(out)
	return out
}

// versionRange is a --keep-range range, with the pre-release rule of
// specs/stack.md.
type versionRange struct{ r semver.Range }

func parseRange(s string) (*versionRange, error) {
	r, err := semver.ParseRange(s)
	if err != nil {
		return nil, fmt.Errorf("%w: --keep-range: %w", ErrOptions, err)
	}
	return &versionRange{r}, nil
}

func (r *versionRange) contains(rel release) bool { return r != nil && r.r.Match(rel.v) }

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
