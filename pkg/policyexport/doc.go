// Package policyexport writes an addonpack verification policy
// (pkg/verify, specs/policy.md) for the controllers that enforce
// signatures in a cluster: Flux (an OCIRepository's spec.verify and the
// Secrets it names), Argo CD (a Config Management Plugin that runs
// addonpack render with the whole policy), Kyverno (a ClusterPolicy with
// verifyImages rules) and Sigstore policy-controller (ClusterImagePolicies
// and the TrustRoots they name), the last two from the policy's images
// section. Trusted roots travel as each consumer takes them: whole to Flux,
// piecewise (CA chains, log keys, TSA chains; root.go) to Kyverno and
// policy-controller.
//
// A target that cannot enforce part of the policy (a threshold, provenance
// or attestation rules, key windows, certificate extensions, parts of a
// trusted root it does not check) is refused with ErrInexpressible listing every
// such item; Options.Lossy exports anyway and says what is lost in a
// comment at the top of the output. docs/gitops.md describes the mapping.
package policyexport
