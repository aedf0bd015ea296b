package verify

import (
	"cmp"
	"slices"
)

// Signer is one signer whose signature verified a digest: a public key by
// its id, or a keyless certificate by its issuer and subject — the distinct
// signers a threshold counts (specs/policy.md). Name is the policy's name
// for it (the --key path for a key given on the command line): for people,
// never for comparison.
type Signer struct {
	KeyID   string `json:"keyId,omitempty"`
	Issuer  string `json:"issuer,omitempty"`
	Subject string `json:"subject,omitempty"`
	Name    string `json:"name,omitempty"`
}

// Same reports whether s and o are the same signer (names aside).
func (s Signer) Same(o Signer) bool {
	return s.KeyID == o.KeyID && s.Issuer == o.Issuer && s.Subject == o.Subject
}

// CompareSigners orders signers as a lock lists them (specs/stack.md
// section 4.3): keys first, by id, then identities, by issuer and subject.
func CompareSigners(a, b Signer) int {
	if (a.KeyID == "") != (b.KeyID == "") {
		if a.KeyID != "" {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(a.KeyID, b.KeyID), cmp.Compare(a.Issuer, b.Issuer), cmp.Compare(a.Subject, b.Subject))
}

// Signers returns the distinct signers of r's valid signatures, in the
// order of CompareSigners, each named as the policy named it first. A
// cached Result (no candidate examined) and a failed one before any
// signature was checked have none; attestations do not count.
func (r *Result) Signers() []Signer {
	var out []Signer
	for _, c := range r.Signatures {
		if c.Verdict != Valid {
			continue
		}
		s := Signer{KeyID: c.KeyID, Name: c.KeyName}
		if c.Identity != nil {
			s = Signer{Issuer: c.Identity.Issuer, Subject: c.Identity.Subject, Name: c.IdentityName}
		}
		if s.KeyID == "" && s.Subject == "" {
			continue
		}
		if !slices.ContainsFunc(out, s.Same) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, CompareSigners)
	return out
}
