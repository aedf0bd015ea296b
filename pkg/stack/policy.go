package stack

import (
	"fmt"

	"github.com/addonpack/addonpack/pkg/semver"
)

// The upgrade policies of a stack file (specs/stack.md section 4.6): how far
// lock --update may move an add-on from its locked version.
const (
	UpgradePatch = "patch"
	UpgradeMinor = "minor"
	UpgradeMajor = "major"
)

// checkPolicy refuses anything but the three policies ("" is the default).
func checkPolicy(p string) error {
	switch p {
	case "", UpgradePatch, UpgradeMinor, UpgradeMajor:
		return nil
	}
	return fmt.Errorf("%q is not an upgrade policy (patch, minor or major)", p)
}

// Effective is the policy p means for an add-on locked at locked: p, or,
// for "", minor from 1.0.0 on and patch for 0.x (where SemVer lets a minor
// version break).
func Effective(p string, locked semver.Version) string {
	switch {
	case p != "":
		return p
	case locked.Major() == 0:
		return UpgradePatch
	}
	return UpgradeMinor
}

// Within reports whether v is within policy p ("" for the default) of the
// locked version: patch keeps major and minor, minor keeps the major
// version, major admits any. It bounds both directions.
func Within(p string, locked, v semver.Version) bool {
	switch Effective(p, locked) {
	case UpgradePatch:
		return v.Major() == locked.Major() && v.Minor() == locked.Minor()
	case UpgradeMinor:
		return v.Major() == locked.Major()
	}
	return true
}

// DescribePolicy names the window of p around locked for messages:
// "minor: 1.x from the locked 1.15.3".
func DescribePolicy(p string, locked semver.Version) string {
	e := Effective(p, locked)
	window := "any version"
	switch e {
	case UpgradePatch:
		window = fmt.Sprintf("%d.%d.x", locked.Major(), locked.Minor())
	case UpgradeMinor:
		window = fmt.Sprintf("%d.x", locked.Major())
	}
	if p == "" {
		e = "default " + e
	}
	return fmt.Sprintf("%s: %s from the locked %s", e, window, locked)
}

// UpgradePolicy is the policy of the add-on in repository repo (as
// registry.Reference.Repo writes it): its root entry's upgrade, else the
// stack's, else "" (the default).
func (s *Stack) UpgradePolicy(repo string) string {
	for _, e := range s.Addons {
		if e.repo.Repo() == repo && e.Upgrade != "" {
			return e.Upgrade
		}
	}
	return s.Upgrade
}
