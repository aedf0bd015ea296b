package consume

import (
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
)

// VersionTarget checks --version RANGE (rangeText) with the argument arg it
// pins, before the repository's tags are read: not offline (the tag list is
// read), a range that parses, and a registry repository rather than a
// path. Its mistakes are errdef.ErrUsage, or registry.ErrInvalidReference
// for arg (ParseReference).
func VersionTarget(arg, rangeText string, offline bool) (registry.Reference, semver.Range, error) {
	if offline {
		return registry.Reference{}, semver.Range{}, errdef.Usagef("--version reads the repository's tag list: it cannot be used with --offline (name the tag)")
	}
	r, err := semver.ParseRange(rangeText)
	if err != nil {
		return registry.Reference{}, semver.Range{}, errdef.Usagef("--version: %w", err)
	}
	if IsPath(arg) {
		return registry.Reference{}, semver.Range{}, errdef.Usagef("--version: %s is a path: a version range picks a tag of a registry repository", arg)
	}
	repo, err := ParseReference(arg)
	if err != nil {
		return registry.Reference{}, semver.Range{}, err
	}
	return repo, r, nil
}

// IsBareRepository reports whether arg is a registry reference naming a
// repository without a tag or digest (what --version pins).
func IsBareRepository(arg string) bool {
	ref, err := ParseReference(arg)
	return err == nil && ref.Tag == "" && ref.Digest == ""
}
