// Package upgrade is the publisher's gate before a release (`addonpack
// config check-upgrade`, specs/config.md section 9.7): it compares the
// config schema of the previous release with the new one (properties,
// types, required properties and the constraints that refuse old values),
// requires every incompatible change to be covered by a conversion rule, a default or a
// fail with a message, and runs the previous release's packed defaults and
// test vectors through the new release's chain.
//
// It also makes the consumer's plan (`addonpack upgrade plan`,
// specs/stack.md section 4.7): for each add-on of a locked stack, or one
// reference, the newest versions within its upgrade policy and overall,
// and for each the user's values converted by the candidate's chain and
// checked against its schema, with Check's report between the releases —
// from manifests and config blobs only, fetched through a Fetcher
// (*consume.Consumer), never the content layers.
package upgrade
