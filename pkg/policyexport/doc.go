// Package policyexport writes an addonpack verification policy
// (pkg/verify, specs/policy.md) for the controllers that enforce
// signatures in a cluster: Flux (an OCIRepository's spec.verify and the
// Secrets it names), Argo CD (a Config Management Plugin that runs
// addonpack render with the whole policy), Kyverno (a ClusterPolicy with
// verifyImages rules) and Sigstore policy-controller (ClusterImagePolicies),
// the last two from the policy's images section.
//
// A target that cannot enforce part of the policy (a threshold, provenance
// or attestation rules, key windows, certificate extensions, a trusted
// root it does not take) is refused with ErrInexpressible listing every
// such item; Options.Lossy exports anyway and says what is lost in a
// comment at the top of the output. docs/gitops.md describes the mapping.
package policyexport
