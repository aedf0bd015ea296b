package upgrade

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the plan for a person: per add-on its version and
// policy, then per candidate whether the values survive it, the rules that
// would convert them, what breaks, and check-upgrade's changes.
func (p *Plan) WriteText(w io.Writer) error {
	for _, a := range p.Addons {
		fmt.Fprintf(w, "%s %s (%s@%s)\n", a.Name, a.Version, a.Repository, a.Digest)
		switch {
		case a.Pinned:
			fmt.Fprintln(w, "  pinned by digest in the stack file: no candidates")
			continue
		case len(a.Candidates) == 0:
			fmt.Fprintf(w, "  up to date (policy %s)\n", a.Policy)
			continue
		}
		for _, c := range a.Candidates {
			where := "within the policy"
			if !c.WithinPolicy {
				where = "outside the policy"
			}
			fmt.Fprintf(w, "  → %s (%s, %s)\n", c.Version, where, a.Policy)
			writeValues(w, a, c)
			if r := c.CheckUpgrade; r != nil {
				for _, ch := range r.Changes {
					by := ch.CoveredBy
					if by == "" {
						by = "NOT COVERED"
					}
					fmt.Fprintf(w, "    check-upgrade: %s: %s\n", ch.Detail, by)
				}
			}
		}
	}
	_, err := fmt.Fprintln(w, p.summary())
	return err
}

func writeValues(w io.Writer, a AddonPlan, c Candidate) {
	if a.Values == "" {
		fmt.Fprintln(w, "    no values: nothing to convert")
		return
	}
	for _, s := range c.Conversion {
		fmt.Fprintf(w, "    %s: convert %s → %s: %s\n", a.Values, s.From, s.To, strings.Join(s.Rules, "; "))
	}
	for _, b := range c.Breaks {
		fmt.Fprintf(w, "    %s: BREAKS: %s\n", a.Values, b)
	}
	if len(c.Breaks) == 0 {
		fmt.Fprintf(w, "    %s: converts and validates (%s)\n", a.Values, c.ConfigVersion)
	}
}

func (p *Plan) summary() string {
	ups, breaks := 0, 0
	for _, a := range p.Addons {
		for _, c := range a.Candidates {
			ups++
			if len(c.Breaks) > 0 {
				breaks++
			}
		}
	}
	switch {
	case breaks > 0:
		return fmt.Sprintf("%d candidate(s), %d of them break the values", ups, breaks)
	case ups > 0:
		return fmt.Sprintf("%d candidate(s); the values survive each", ups)
	}
	return "nothing to upgrade"
}
