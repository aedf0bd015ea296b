package semver

import (
	"fmt"
	"strings"

	msv "github.com/Masterminds/semver/v3"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Sentinel errors; errors of this package wrap one of them.
var (
	// ErrVersion reports a string that is not a strict semantic version.
	ErrVersion = errdef.New(errdef.ErrInvalid, "not a strict semantic version")
	// ErrRange reports a string that is not a version range.
	ErrRange = errdef.New(errdef.ErrInvalid, "not a version range")
	// ErrNoMatch reports a range that no version satisfies.
	ErrNoMatch = errdef.New(errdef.ErrNotFound, "no version matches")
	// ErrAmbiguous reports two tags of equal precedence where one is chosen.
	ErrAmbiguous = errdef.New(errdef.ErrInvalid, "ambiguous versions")
)

// Version is a strict semantic version.
type Version struct{ v *msv.Version }

// Parse reads s as a strict semantic version ("1.2.3-rc.1+build").
func Parse(s string) (Version, error) {
	v, err := msv.StrictNewVersion(s)
	if err != nil {
		return Version{}, fmt.Errorf("%q: %w: %w", s, ErrVersion, err)
	}
	return Version{v}, nil
}

// FromTag reads an OCI tag as a version: "_" stands for "+", which tags
// cannot hold.
func FromTag(tag string) (Version, error) {
	return Parse(strings.ReplaceAll(tag, "_", "+"))
}

// MustParse is Parse for constants in tests and examples; it panics on error.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// String returns the version as written in addon.yaml, with "+".
func (v Version) String() string {
	if v.v == nil {
		return ""
	}
	return v.v.Original()
}

// Tag returns the version as an OCI tag, "+" written as "_".
func (v Version) Tag() string { return strings.ReplaceAll(v.String(), "+", "_") }

// IsZero reports the zero Version.
func (v Version) IsZero() bool { return v.v == nil }

// Prerelease returns the pre-release part ("rc.1"), or "".
func (v Version) Prerelease() string { return v.v.Prerelease() }

// Compare orders by SemVer precedence: -1, 0 or 1. Build metadata does not
// take part, so "1.5.0+aws" and "1.5.0+gcp" compare equal.
func (v Version) Compare(o Version) int { return v.v.Compare(o.v) }

// Equal reports equal precedence and equal build metadata: the same version
// as written, which Compare alone does not tell.
func (v Version) Equal(o Version) bool {
	return v.Compare(o) == 0 && v.v.Metadata() == o.v.Metadata()
}

// Major returns the major version.
func (v Version) Major() uint64 { return v.v.Major() }

// Minor returns the minor version.
func (v Version) Minor() uint64 { return v.v.Minor() }

// core is MAJOR.MINOR.PATCH, the tuple the pre-release rule compares.
func (v Version) core() [3]uint64 { return [3]uint64{v.v.Major(), v.v.Minor(), v.v.Patch()} }

// Core returns MAJOR.MINOR.PATCH of v, without pre-release or build: the
// part of a cluster's version ("1.29.3-eks-1") that Kubernetes ranges of
// add-ons compare.
func (v Version) Core() Version {
	return MustParse(fmt.Sprintf("%d.%d.%d", v.v.Major(), v.v.Minor(), v.v.Patch()))
}
