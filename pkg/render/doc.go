// Package render builds an add-on package's kustomization in process,
// safely and deterministically, and lists the container images of the
// result.
//
// # How config reaches the manifests
//
// There is no text templating. The caller's validated config object (for
// example apiVersion coredns.addons.example.com/v1alpha1, kind
// CoreDNSConfig, with metadata.name and a spec), annotated
// config.kubernetes.io/local-config: "true", takes the place of the resource
// of the root kustomization that holds the packed defaults of that kind (so
// the package also builds standalone), or is added as an extra resource when
// there is none (specs/config.md). The add-on's replacements
// (source: {kind: CoreDNSConfig, fieldPath: spec.replicas}) copy its values
// into the manifests, and kustomize drops the object from the output: it
// filters local-config resources once, at the very end of the top-level
// build, so every transformer of the root kustomization and of its
// components sees the object. Replacements in a base reached through
// resources do not: a base is built on its own before the root's resources
// are merged. An add-on should therefore keep the replacements that read its
// config in its root kustomization or in components, and must not ship a
// config object of the same kind and name itself.
//
// Optional kustomize Components chosen by the caller (say, because a boolean
// config field is true) are appended to the root kustomization's
// components. Both edits are made to an in-memory copy of the package.
//
// # Safety
//
// Kustomize only sees an in-memory filesystem (filesys.MakeFsInMemory)
// filled from the package's fs.FS; symlinks and special files are refused.
// Loads are restricted to the kustomization root, only builtin plugins run,
// helm is refused, and before building every reachable kustomization is
// checked so that kustomize never clones a git repository or fetches a URL:
// see Build for the rules and RefusedError for the messages.
//
// Kustomize keeps process-wide state (kyaml's OpenAPI schema), so Build
// guards its kustomize runs with a package read-write mutex: builds that
// keep the default schema run together, a build whose kustomization sets
// its own openapi schema runs alone (see mu in build.go, with warm this
// package's only package-level state).
package render
