package verify

import (
	"cmp"
	"fmt"
	"io"

	"github.com/addonpack/addonpack/pkg/keys"
)

// WriteText writes the human summary; verbose adds every candidate and why
// each failed.
func (r *Result) WriteText(w io.Writer, verbose bool) error {
	if r.Cached {
		_, err := fmt.Fprintf(w, "VERIFIED: %s (cached)\n  policy %s, scope %s: passed within the cache's time-to-live; -v or --no-cache checks the signatures again\n",
			r.Reference, keys.ShortID(r.Policy), cmp.Or(r.Scope, "(default)"))
		return err
	}
	verdict := "VERIFIED"
	if !r.Verified {
		verdict = "NOT VERIFIED"
	}
	fmt.Fprintf(w, "%s: %s\n", verdict, r.Reference)
	scope := r.Scope
	if scope == "" {
		scope = "(default)"
	}
	fmt.Fprintf(w, "  policy %s, scope %s, threshold %d\n", keys.ShortID(r.Policy), scope, r.Threshold)
	for _, id := range r.SignedBy {
		fmt.Fprintf(w, "  signed by %s\n", id)
	}
	nAtt := 0
	for _, a := range r.Attestations {
		if a.Verdict == Valid {
			nAtt++
			fmt.Fprintf(w, "  attested %s by %s\n", a.PredicateType, a.by())
		}
	}
	fmt.Fprintf(w, "  %d signature(s), %d attestation(s) examined; %d valid signer(s), %d valid attestation(s)\n",
		len(r.Signatures), len(r.Attestations), len(r.SignedBy), nAtt)
	for _, rule := range r.Rules {
		if rule.Holds {
			fmt.Fprintf(w, "  rule %s (%s) holds: %s\n", rule.Name, rule.PredicateType, rule.Location)
		} else {
			fmt.Fprintf(w, "  rule %s (%s) does not hold\n", rule.Name, rule.PredicateType)
		}
	}
	if s := r.Summary; s != nil {
		if s.Holds {
			fmt.Fprintf(w, "  verification summary by %s holds: %s\n", s.Verifier, s.Location)
		} else {
			fmt.Fprintf(w, "  verification summary by %s missing or not satisfied\n", s.Verifier)
		}
	}
	for _, reason := range r.Reasons {
		fmt.Fprintf(w, "  reason: %s\n", reason)
	}
	if verbose {
		for _, list := range [][]Candidate{r.Signatures, r.Attestations} {
			for _, c := range list {
				line := fmt.Sprintf("  - %s %s %s", c.Verdict, c.Format, c.Kind)
				if c.PredicateType != "" {
					line += " " + c.PredicateType
				}
				if c.KeyID != "" {
					line += " key " + keys.ShortID(c.KeyID)
				}
				if c.Identity != nil {
					line += " identity " + identitySigner(c.Identity)
				}
				fmt.Fprintf(w, "%s at %s\n", line, c.Location)
				if c.Reason != "" {
					fmt.Fprintf(w, "      why: %s\n", c.Reason)
				}
			}
		}
	}
	return nil
}

// by names who made a valid candidate: its key (short id) or its
// certificate's identity.
func (c Candidate) by() string {
	if c.Identity != nil && c.KeyID == "" {
		return identitySigner(c.Identity)
	}
	return keys.ShortID(c.KeyID)
}
