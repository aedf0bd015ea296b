package verify

import (
	"fmt"
	"sort"
	"time"
)

// AgeingWindow is how far ahead verify and `trusted-root inspect` look for
// parts of a pinned root that stop being valid (specs/policy.md, "Trust
// material that ages").
const AgeingWindow = 30 * 24 * time.Hour

// Kinds of the parts of a trusted root, as Ageing names them.
const (
	PartCA        = "certificate authority"
	PartRekorLog  = "Rekor log"
	PartCTLog     = "CT log"
	PartTimestamp = "timestamping authority"
)

// Ageing is a part of a pinned trusted root that stops being valid within
// the window looked at, or has stopped and nothing of its kind in the root
// is valid now. A part that expired and was replaced (the public-good
// root's first Fulcio CA and CT log) is not one: it still serves
// signatures made in its time and says nothing new.
type Ageing struct {
	Root   string    `json:"root"`   // the root's name
	Digest string    `json:"digest"` // the root's digest
	Kind   string    `json:"kind"`   // PartCA, PartRekorLog, PartCTLog, PartTimestamp
	Name   string    `json:"name"`   // its URI or base URL, else its subject
	Ends   time.Time `json:"ends"`
	// Expired: Ends is not after now.
	Expired bool `json:"expired"`
	// Replaced: another part of the same kind is valid after Ends.
	Replaced bool `json:"replaced"`
	now      time.Time
}

// String says which part, when, and what it means for verification.
func (a Ageing) String() string {
	what := fmt.Sprintf("trusted root %q (%s): %s %s", a.Root, a.Digest, a.Kind, a.Name)
	when := a.Ends.UTC().Format(time.RFC3339)
	switch {
	case a.Expired:
		return fmt.Sprintf("%s stopped being valid at %s (%s ago) and no other %s of the root is valid now: signatures it would have to prove after then do not verify; fetch or create a newer root and pin its digest",
			what, when, days(a.now.Sub(a.Ends)), a.Kind)
	case a.Replaced:
		return fmt.Sprintf("%s stops being valid at %s (in %s); another %s of the root stays valid after then", what, when, days(a.Ends.Sub(a.now)), a.Kind)
	}
	return fmt.Sprintf("%s stops being valid at %s (in %s) and no other %s of the root is valid after then: fetch or create a newer root and pin its digest before then",
		what, when, days(a.Ends.Sub(a.now)), a.Kind)
}

func days(d time.Duration) string {
	switch n := int((d + 12*time.Hour) / (24 * time.Hour)); {
	case d < 24*time.Hour:
		return d.Round(time.Minute).String()
	case n == 1:
		return "1 day"
	default:
		return fmt.Sprintf("%d days", n)
	}
}

// Ageing returns the parts of r that stop being valid within `within` of
// now, and those that have stopped with nothing of their kind valid now,
// ordered by when they end.
func (r *TrustedRoot) Ageing(now time.Time, within time.Duration) ([]Ageing, error) {
	rep, err := r.Report(now)
	if err != nil {
		return nil, err
	}
	return ageing(r, rep, now, within), nil
}

// part is one part of a root reduced to what ageing reads.
type part struct {
	kind, name  string
	start, ends *time.Time
}

func (p part) validAt(t time.Time) bool {
	return (p.start == nil || !t.Before(*p.start)) && (p.ends == nil || t.Before(*p.ends))
}

func parts(rep *RootReport) []part {
	var out []part
	for _, a := range rep.CertificateAuthorities {
		out = append(out, part{PartCA, orElse(a.URI, a.Subject), a.ValidFor.Start, a.Ends})
	}
	for _, l := range rep.TransparencyLogs {
		out = append(out, part{PartRekorLog, orElse(l.BaseURL, l.LogID), l.ValidFor.Start, l.ValidFor.End})
	}
	for _, l := range rep.CTLogs {
		out = append(out, part{PartCTLog, orElse(l.BaseURL, l.LogID), l.ValidFor.Start, l.ValidFor.End})
	}
	for _, a := range rep.TimestampAuthorities {
		out = append(out, part{PartTimestamp, orElse(a.URI, a.Subject), a.ValidFor.Start, a.Ends})
	}
	return out
}

func ageing(r *TrustedRoot, rep *RootReport, now time.Time, within time.Duration) []Ageing {
	ps := parts(rep)
	var out []Ageing
	for i, p := range ps {
		if p.ends == nil || p.ends.Sub(now) > within {
			continue
		}
		a := Ageing{Root: r.Name, Digest: r.Digest, Kind: p.kind, Name: p.name, Ends: *p.ends, Expired: !p.ends.After(now), now: now}
		for j, q := range ps {
			if j == i || q.kind != p.kind {
				continue
			}
			if a.Expired && q.validAt(now) || !a.Expired && q.validAt(*p.ends) {
				a.Replaced = true
			}
		}
		if a.Expired && a.Replaced {
			continue // rotated: it serves old signatures, and says nothing new
		}
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ends.Before(out[j].Ends) })
	return out
}

func orElse(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

// Ageing returns the ageing parts of every trusted root p pins, within
// AgeingWindow of now: what verify warns about.
func (p *Policy) Ageing(now time.Time) ([]Ageing, error) {
	var out []Ageing
	for _, r := range p.TrustedRoots() {
		a, err := r.Ageing(now, AgeingWindow)
		if err != nil {
			return nil, err
		}
		out = append(out, a...)
	}
	return out, nil
}

// TrustedRoots returns the distinct trusted roots (by name and digest) p's
// identities pin, in that order.
func (p *Policy) TrustedRoots() []*TrustedRoot {
	seen := map[[2]string]bool{}
	var out []*TrustedRoot
	for _, s := range p.Scopes {
		for _, id := range s.Identities {
			if r := id.Root; r != nil && !seen[[2]string{r.Name, r.Digest}] {
				seen[[2]string{r.Name, r.Digest}] = true
				out = append(out, r)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Digest < out[j].Digest
	})
	return out
}
