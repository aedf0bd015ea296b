package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
)

// VerificationSummaryPredicateType is SLSA's Verification Summary
// Attestation v1 (specs/policy.md, Verification summaries).
const VerificationSummaryPredicateType = "https://slsa.dev/verification_summary/v1"

// Verification results a VSA states.
const (
	VerificationPassed = "PASSED"
	VerificationFailed = "FAILED"
)

// MaxSummarySize bounds a VSA predicate decoded.
const MaxSummarySize = 4 << 20

// SummaryRule is a scope's requireVerificationSummary: a valid VSA by one of
// the scope's signers must name Verifier, PASSED, the manifest digest and,
// when set, PolicyDigest ("sha256:<hex>") as the policy it was verified
// under.
type SummaryRule struct {
	Verifier     string `json:"verifier"`
	PolicyDigest string `json:"policyDigest,omitempty"`
}

// VerificationSummary is the VSA v1 predicate (SLSA v1.0
// verification_summary): what vet writes and what a policy's
// requireVerificationSummary reads. Unknown fields are ignored.
type VerificationSummary struct {
	Verifier           SummaryVerifier      `json:"verifier"`
	TimeVerified       time.Time            `json:"timeVerified"`
	ResourceURI        string               `json:"resourceUri"`
	Policy             ResourceDescriptor   `json:"policy"`
	InputAttestations  []ResourceDescriptor `json:"inputAttestations,omitempty"`
	VerificationResult string               `json:"verificationResult"`
	VerifiedLevels     []string             `json:"verifiedLevels"`
	DependencyLevels   map[string]int       `json:"dependencyLevels,omitempty"`
	SLSAVersion        string               `json:"slsaVersion,omitempty"`
}

// SummaryVerifier identifies who verified.
type SummaryVerifier struct {
	ID      string            `json:"id"`
	Version map[string]string `json:"version,omitempty"`
}

// ResourceDescriptor is the part of an in-toto ResourceDescriptor a VSA
// uses.
type ResourceDescriptor struct {
	URI    string            `json:"uri,omitempty"`
	Name   string            `json:"name,omitempty"`
	Digest map[string]string `json:"digest,omitempty"`
}

// ParseVerificationSummary decodes a VSA v1 predicate and checks what the
// VSA spec requires of it: a verifier id, a resourceUri, a policy with a
// uri, a result of PASSED or FAILED and at least one verified level.
func ParseVerificationSummary(b []byte) (*VerificationSummary, error) {
	if len(b) > MaxSummarySize {
		return nil, fmt.Errorf("%w: verification summary: %d bytes, more than %d", ErrMalformed, len(b), MaxSummarySize)
	}
	var s VerificationSummary
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: verification summary: %w", ErrMalformed, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: verification summary: data after the predicate", ErrMalformed)
	}
	var missing []string
	for field, empty := range map[string]bool{
		"verifier.id": s.Verifier.ID == "", "resourceUri": s.ResourceURI == "", "policy.uri": s.Policy.URI == "",
		"verifiedLevels": len(s.VerifiedLevels) == 0, "timeVerified": s.TimeVerified.IsZero(),
	} {
		if empty {
			missing = append(missing, field)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("%w: verification summary: no %s", ErrMalformed, strings.Join(missing, ", "))
	}
	if s.VerificationResult != VerificationPassed && s.VerificationResult != VerificationFailed {
		return nil, fmt.Errorf("%w: verification summary: verificationResult %q, want %s or %s", ErrMalformed, s.VerificationResult, VerificationPassed, VerificationFailed)
	}
	return &s, nil
}

// ResourceDigest returns the digest a resourceUri names after its last "@"
// ("REGISTRY/REPO@sha256:…", or a pkg:oci purl's version).
func (s *VerificationSummary) ResourceDigest() (digest.Digest, error) {
	i := strings.LastIndex(s.ResourceURI, "@")
	if i < 0 {
		return "", fmt.Errorf("resourceUri %q names no digest", s.ResourceURI)
	}
	d := s.ResourceURI[i+1:]
	if j := strings.IndexAny(d, "?#"); j >= 0 {
		d = d[:j]
	}
	// A purl percent-encodes the version's ':' (pkg:oci/hello@sha256%3A…).
	d, err := url.PathUnescape(d)
	if err != nil {
		return "", fmt.Errorf("resourceUri %q: %w", s.ResourceURI, err)
	}
	dg := digest.Digest(d)
	if err := dg.Validate(); err != nil {
		return "", fmt.Errorf("resourceUri %q: %w", s.ResourceURI, err)
	}
	return dg, nil
}

// SummaryResult is the outcome of a scope's requireVerificationSummary.
type SummaryResult struct {
	Verifier     string `json:"verifier"`
	PolicyDigest string `json:"policyDigest,omitempty"`
	Holds        bool   `json:"holds"`
	// Location is the attestation that satisfied the rule.
	Location string `json:"location,omitempty"`
	// Reasons say, for each summary examined, why it did not.
	Reasons []string `json:"reasons,omitempty"`
}

// check says why s does not satisfy r for subject (nil when it does).
func (r SummaryRule) check(s *VerificationSummary, subject digest.Digest) error {
	var why []string
	if s.Verifier.ID != r.Verifier {
		why = append(why, fmt.Sprintf("verifier %q, want %q", s.Verifier.ID, r.Verifier))
	}
	if s.VerificationResult != VerificationPassed {
		why = append(why, fmt.Sprintf("verificationResult %s", s.VerificationResult))
	}
	if d, err := s.ResourceDigest(); err != nil {
		why = append(why, err.Error())
	} else if d != subject {
		why = append(why, fmt.Sprintf("resourceUri names %s, not %s", d, subject))
	}
	if r.PolicyDigest != "" {
		want := strings.TrimPrefix(r.PolicyDigest, "sha256:")
		if got := s.Policy.Digest["sha256"]; got != want {
			why = append(why, fmt.Sprintf("policy digest sha256:%s, want %s", got, r.PolicyDigest))
		}
	}
	if len(why) > 0 {
		return errors.New(strings.Join(why, ", "))
	}
	return nil
}

// checkSummary evaluates the scope's requireVerificationSummary over the
// valid attestations among cands: nil results when the scope has none.
func checkSummary(scope *Scope, cands []candidate, subject digest.Digest) (*SummaryResult, error) {
	r := scope.Summary
	if r == nil {
		return nil, nil
	}
	res := &SummaryResult{Verifier: r.Verifier, PolicyDigest: r.PolicyDigest}
	for _, c := range cands {
		if c.Verdict != Valid || c.statement == nil || c.Kind == "signature" || c.PredicateType != VerificationSummaryPredicateType {
			continue
		}
		s, err := ParseVerificationSummary(c.statement.Predicate)
		if err == nil {
			err = r.check(s, subject)
		}
		if err == nil {
			res.Holds, res.Location, res.Reasons = true, c.Location, nil
			return res, nil
		}
		res.Reasons = append(res.Reasons, c.Location+" (by "+c.by()+"): "+err.Error())
	}
	if len(res.Reasons) == 0 {
		res.Reasons = []string{"no valid verification summary (" + VerificationSummaryPredicateType + ") signed by the scope's signers"}
	}
	return res, fmt.Errorf("%w: scope %q: verification summary by verifier %q not satisfied: %s",
		ErrAttestation, scope.Prefix, r.Verifier, strings.Join(res.Reasons, "; "))
}

// canonical is the rule's part of the policy digest (nil when absent, so
// that older digests stay).
func (r *SummaryRule) canonical() *summaryCanon {
	if r == nil {
		return nil
	}
	return &summaryCanon{Verifier: r.Verifier, PolicyDigest: r.PolicyDigest}
}

type summaryCanon struct {
	Verifier     string `json:"verifier"`
	PolicyDigest string `json:"policyDigest,omitempty"`
}

// validate refuses a rule that could never hold (nil is valid: no rule).
func (r *SummaryRule) validate() error {
	if r == nil {
		return nil
	}
	if r.Verifier == "" {
		return errors.New("requireVerificationSummary: no verifier")
	}
	if r.PolicyDigest != "" {
		if d := digest.Digest(r.PolicyDigest); d.Algorithm() != digest.SHA256 || d.Validate() != nil {
			return fmt.Errorf("requireVerificationSummary: policyDigest %q is not sha256:<hex>", r.PolicyDigest)
		}
	}
	return nil
}
