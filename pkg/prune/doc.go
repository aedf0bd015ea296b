// Package prune deletes an add-on's older releases from a repository with
// everything that vouches for them: the release tag, its manifest, cosign's
// classic sha256-<hex>.sig/.att/.sbom tags, its OCI referrers (through the
// referrers API or the referrers tag schema), and recursively theirs.
//
// Prune works in two steps. NewPlan reads the repository — its tag list, the
// digest of every tag, the graph under each release to delete — and decides,
// without changing anything, what goes and what stays and why. Execute then
// deletes the plan's items in the order specs/prune.md defends: every
// release's subject manifest before what vouches for it, referrers before
// the classic tags that lead a later run back to them. A dry run is a plan
// that is printed and not executed.
//
// Safety: releases are ordered by semantic version, never by date; tags that
// are not strict semver are never deleted unless named; a digest another
// kept tag points at, or that a protect file pins (Pins), is never deleted
// (a release tag sharing it is only untagged, where the registry can delete
// a tag alone). A registry that refuses deletes fails the first deletion,
// which is always a release's manifest, so nothing else is touched.
package prune
