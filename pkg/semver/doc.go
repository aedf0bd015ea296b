// Package semver reads versions from OCI tags and resolves version ranges to
// one tag, by the rules of specs/stack.md: strict semantic versions ("_" in a
// tag standing for "+"), Masterminds semver ranges narrowed by npm's
// pre-release rule, and no coin tosses between tags of equal precedence.
//
// The package does no I/O: callers list tags (registry.Client.Tags) and hand
// them in.
package semver
