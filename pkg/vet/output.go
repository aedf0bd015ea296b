package vet

import (
	"fmt"
	"io"
)

// WriteText writes what was vetted and stored; for a vet refused by the
// upstream verification, the verdict that refused it.
func (r *Result) WriteText(w io.Writer) error {
	if r.Signature == nil || r.Summary == nil || r.Predicate == nil {
		if r.Verification == nil {
			return nil
		}
		return r.Verification.WriteText(w, false)
	}
	p := r.Predicate
	_, err := fmt.Fprintf(w, "Vetted %s under %s (policy %s)\n  signed with %s at %s\n  verification summary by %s (%s, %d inputs) at %s\n",
		r.Reference, p.Policy.URI, r.Verification.Policy, r.Signature.SignedBy(), r.Signature.Location,
		p.Verifier.ID, p.VerifiedLevels[0], len(p.InputAttestations), r.Summary.Location)
	return err
}
