package verify

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// predicateAliases are the short names a policy's predicateTypes and
// --require-attestation accept besides predicate type URIs: cosign's --type
// names, and "sbom" for an SBOM in either format cosign writes.
var predicateAliases = map[string][]string{
	"sbom":            {"https://cyclonedx.org/bom", "https://spdx.dev/Document"},
	"cyclonedx":       {"https://cyclonedx.org/bom"},
	"spdx":            {"https://spdx.dev/Document"},
	"spdxjson":        {"https://spdx.dev/Document"},
	"slsaprovenance1": {ProvenancePredicateType},
	"vuln":            {"https://cosign.sigstore.dev/attestation/vuln/v1"},
	"openvex":         {"https://openvex.dev/ns"},
}

// predicateMatches reports whether an attestation of type got satisfies a
// required type want (a URI, or an alias).
func predicateMatches(want, got string) bool {
	if want == got {
		return true
	}
	return slices.Contains(predicateAliases[want], got)
}

// describePredicate names a required type for messages: an alias with the
// URIs it stands for.
func describePredicate(want string) string {
	if uris, ok := predicateAliases[want]; ok {
		return want + " (" + strings.Join(uris, " or ") + ")"
	}
	return want
}

// Predicate returns the predicate of the first valid attestation whose type
// satisfies want (a URI or an alias), or nil. Only attestations checked in
// this verification carry their predicate.
func (r *Result) Predicate(want string) json.RawMessage {
	if r == nil {
		return nil
	}
	for _, c := range r.Attestations {
		if c.Verdict == Valid && c.statement != nil && predicateMatches(want, c.PredicateType) {
			return c.statement.Predicate
		}
	}
	return nil
}

// Attached lists the signatures and attestations stored for subject in t's
// repository without checking any — kind, format, location and the
// predicate type the storage claims — for display (inspect). Nothing it
// returns is trusted; Verify checks them. The listing is bounded as
// Verify's is.
func Attached(ctx context.Context, t Target, subject ocispec.Descriptor, limits Limits) ([]Candidate, error) {
	c := &collector{t: t, subject: subject, limits: limits.withDefaults()}
	cands, err := c.collect(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Candidate, len(cands))
	for i, cd := range cands {
		out[i] = cd.Candidate
		out[i].Verdict = "unverified"
	}
	return out, nil
}

// HasPredicate reports whether one of cands claims a type satisfying want.
func HasPredicate(cands []Candidate, want string) (string, bool) {
	for _, c := range cands {
		if c.Kind == "attestation" && predicateMatches(want, c.PredicateType) {
			return c.PredicateType, true
		}
	}
	return "", false
}
