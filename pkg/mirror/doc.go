// Package mirror runs a mirror file (specs/mirror.md): a declared list of
// upstream repositories and version selectors, copied to one destination —
// a registry prefix or an OCI layout tarball — by digest, with every
// signature, attestation and referrer, verified at the source and again at
// the destination before any tag is set.
//
// It owns no mechanism of its own: selection is pkg/semver's (the range,
// its pre-release rule, the "no ties" rule), verification pkg/consume's,
// and the copy pkg/relocate's (what `addonpack copy` does, one release at a
// time). What it adds is the decision per release — up to date, drift,
// refused, copied — that makes a run idempotent: a second run writes
// nothing, and a destination tag pointing at another digest than the
// source's is reported and never moved without Options.Force.
package mirror
