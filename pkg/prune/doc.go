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
// are not strict semver are never deleted unless named. Before planning,
// NewPlan computes by digest everything the kept tags and the pins of a
// protect file (Pins) need — what vouches for them and what an index lists,
// recursively — and never deletes any of it, whatever tag points at it:
// anyone who can push tags can point an old release's sha256-<hex>.sig at a
// kept release's signature, and a registry deletes a manifest by digest for
// every tag. Such a manifest is skipped and reported with what needs it; a
// release tag on a needed manifest is only untagged, where the registry can
// delete a tag alone. A registry that refuses deletes fails the first
// deletion, which is always a release's manifest, so nothing else is touched.
package prune
