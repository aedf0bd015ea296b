// Package vet vets an upstream add-on for an organisation: it verifies the
// add-on's digest under the upstream (publisher's) policy through the
// consumer path (pkg/consume), and only when that passes adds the
// organisation's signature and a SLSA Verification Summary Attestation
// (https://slsa.dev/verification_summary/v1) beside the publisher's
// signatures, never touching them (specs/policy.md, Verification
// summaries). A downstream policy then trusts the organisation's key and
// requires the summary (requireVerificationSummary).
package vet
