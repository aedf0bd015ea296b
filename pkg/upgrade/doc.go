// Package upgrade is the publisher's gate before a release (`addonpack
// config check-upgrade`, specs/config.md section 9.7): it compares the
// config schema of the previous release with the new one (properties,
// types, required properties and the constraints that refuse old values),
// requires every incompatible change to be covered by a conversion rule, a default or a
// fail with a message, and runs the previous release's packed defaults and
// test vectors through the new release's chain.
package upgrade
