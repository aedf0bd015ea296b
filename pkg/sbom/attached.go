package sbom

import (
	"context"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/verify"
)

// Attachment says whether an artifact carries an SBOM attestation and, once
// verified, what it records.
type Attachment struct {
	Attached bool `json:"attached"`
	// PredicateType is the type the storage claims (cosign's cyclonedx or spdx).
	PredicateType string `json:"predicateType,omitempty"`
	// Verified is true when the SBOM was verified under a policy; only then
	// are Images and Files read from it.
	Verified bool    `json:"verified"`
	Images   []Image `json:"images,omitempty"`
	Files    int     `json:"files,omitempty"`
}

// Inspect looks for an SBOM attestation of subject. Without a policy it only
// lists what is stored (unverified); with one it verifies the artifact under
// p requiring an SBOM (a failure is verify's error, exit code 9) and reads
// the images and files it records. An SPDX SBOM verifies but is not read.
func Inspect(ctx context.Context, t verify.Target, subject ocispec.Descriptor, p *verify.Policy) (*Attachment, error) {
	cands, err := verify.Attached(ctx, t, subject, verify.Limits{})
	if err != nil {
		return nil, err
	}
	return InspectListed(ctx, t, subject, cands, p)
}

// InspectListed is Inspect on the signatures and attestations of subject
// already listed (verify.Attached or verify.Describe), so a caller that
// lists them anyway does not list them twice.
func InspectListed(ctx context.Context, t verify.Target, subject ocispec.Descriptor, cands []verify.Candidate, p *verify.Policy) (*Attachment, error) {
	a := &Attachment{}
	a.PredicateType, a.Attached = verify.HasPredicate(cands, "sbom")
	if p == nil || !a.Attached {
		return a, nil
	}
	res, err := verify.Verify(ctx, t, subject, p.WithProvenance(verify.ProvenanceRules{PredicateTypes: []string{"sbom"}}))
	if err != nil {
		return nil, err
	}
	a.Verified = true
	if pred := res.Predicate("cyclonedx"); pred != nil {
		s, err := Read(pred)
		if err != nil {
			return nil, err
		}
		a.Images, a.Files = s.Images, s.Files
	}
	return a, nil
}
