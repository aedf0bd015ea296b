// Package build turns an add-on source directory into an addonpack OCI
// artifact in a content store, with no network: it validates addon.yaml, the
// component-config schema and defaults, builds the kustomization in process
// as a check, packs the tree reproducibly and assembles the manifest
// (specs/artifact.md).
//
// The same source tree gives the same manifest digest on any machine, any
// day: file mtimes, owners, umask, directory order and the absolute path do
// not matter. What does matter, besides the files: the `created` time and
// `revision` annotations, taken from Options or, when a Describer is set,
// from the git commit of the source.
package build
