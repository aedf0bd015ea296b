package stack

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Signer is one signer a lock records for an entry (specs/stack.md section
// 4.3): a public key by its id, or a keyless certificate by its issuer and
// subject. Name is the policy's name for a signer just verified, for
// messages; it is not in the lock.
type Signer struct {
	KeyID   string `yaml:"keyId,omitempty" json:"keyId,omitempty"`
	Issuer  string `yaml:"issuer,omitempty" json:"issuer,omitempty"`
	Subject string `yaml:"subject,omitempty" json:"subject,omitempty"`
	Name    string `yaml:"-" json:"-"`
}

// Bounds of the signers of one entry (specs/stack.md section 4.5 item 1.7).
const (
	MaxSigners        = 64
	MaxIdentityLength = 2048
)

// ErrSignerChange is the refusal of lock --update to move an add-on to an
// artifact none of its locked signers signed, or that the run did not
// verify (specs/stack.md section 4.8): a verification failure, exit 9.
var ErrSignerChange = errdef.New(errdef.ErrVerification, "signers changed")

var keyID = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)

func (s Signer) verify() verify.Signer {
	return verify.Signer{KeyID: s.KeyID, Issuer: s.Issuer, Subject: s.Subject, Name: s.Name}
}

// String is the signer's id — the key id, or "SUBJECT (issuer ISSUER)" —
// with the policy's name when it has one.
func (s Signer) String() string {
	if s.KeyID != "" {
		if s.Name != "" {
			return s.KeyID + " (" + s.Name + ")"
		}
		return s.KeyID
	}
	if s.Name != "" {
		return s.Subject + " (issuer " + s.Issuer + ", " + s.Name + ")"
	}
	return s.Subject + " (issuer " + s.Issuer + ")"
}

// fromVerify converts verified signers to the lock's.
func fromVerify(vs []verify.Signer) []Signer {
	var out []Signer
	for _, v := range vs {
		out = append(out, Signer{KeyID: v.KeyID, Issuer: v.Issuer, Subject: v.Subject, Name: v.Name})
	}
	return out
}

// canonicalSigners returns ss in the lock's order, each once (nil for
// none): keys first by id, then identities by issuer and subject.
func canonicalSigners(ss []Signer) []Signer {
	if len(ss) == 0 {
		return nil
	}
	out := slices.Clone(ss)
	slices.SortStableFunc(out, func(a, b Signer) int { return verify.CompareSigners(a.verify(), b.verify()) })
	return slices.CompactFunc(out, func(a, b Signer) bool { return a.verify().Same(b.verify()) })
}

// checkSigners refuses an entry's signers that no lock could have written
// (specs/stack.md section 4.5 item 1.7).
func (l *Lock) checkSigners(a LockedAddon) error {
	if a.Signers == nil {
		return nil
	}
	switch {
	case l.APIVersion != APIVersionV1Alpha2:
		return fmt.Errorf("signers need apiVersion %s", APIVersionV1Alpha2)
	case len(a.Signers) == 0:
		return fmt.Errorf("signers is empty: leave it out when nothing was verified")
	case len(a.Signers) > MaxSigners:
		return fmt.Errorf("%d signers, more than %d", len(a.Signers), MaxSigners)
	}
	for i, s := range a.Signers {
		key, id := s.KeyID != "", s.Issuer != "" || s.Subject != ""
		switch {
		case key == id || id && (s.Issuer == "" || s.Subject == ""):
			return fmt.Errorf("signers[%d]: give exactly one of keyId and the pair issuer and subject", i)
		case key && !keyID.MatchString(s.KeyID):
			return fmt.Errorf("signers[%d]: keyId %q is not a key id (sha256: and 64 lowercase hex digits)", i, s.KeyID)
		case len(s.Issuer) > MaxIdentityLength:
			return fmt.Errorf("signers[%d]: issuer is longer than %d characters", i, MaxIdentityLength)
		case len(s.Subject) > MaxIdentityLength:
			return fmt.Errorf("signers[%d]: subject is longer than %d characters", i, MaxIdentityLength)
		}
		if i == 0 {
			continue
		}
		switch c := verify.CompareSigners(a.Signers[i-1].verify(), s.verify()); {
		case c == 0:
			return fmt.Errorf("signers[%d]: listed twice", i)
		case c > 0:
			return fmt.Errorf("signers[%d]: out of order (keys first by keyId, then identities by issuer and subject)", i)
		}
	}
	return nil
}

// signerChanges lists every entry of l whose digest changed from old's
// entry of the same repository when the old entry records signers and
// either the new artifact was not verified in this run (it has none: the
// lineage cannot be checked) or none of the old signers signed it, by
// sameLineage (specs/stack.md section 4.8 items 2 and 5). Entries new to
// the lock, or without recorded signers, are not compared.
func signerChanges(old, l *Lock) []string {
	var out []string
	for _, a := range l.Addons {
		i := slices.IndexFunc(old.Addons, func(o LockedAddon) bool { return o.Repository == a.Repository })
		if i < 0 {
			continue
		}
		o := old.Addons[i]
		if o.Digest == a.Digest || len(o.Signers) == 0 || overlap(o.Signers, a.Signers) {
			continue
		}
		moved := o.Version + " → " + a.Version
		if o.Version == a.Version {
			moved += " (" + a.Digest.String() + ", was " + o.Digest.String() + ")"
		}
		if len(a.Signers) == 0 {
			out = append(out, fmt.Sprintf("%s %s: not verified in this run: lineage cannot be checked (signed by %s)", a.Name, moved, signerList(o.Signers)))
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: signed by %s, now only by %s", a.Name, moved, signerList(o.Signers), signerList(a.Signers)))
	}
	return out
}

// carrySigners keeps the recorded signers of every entry whose digest did
// not change when this run verified nothing for it (--offline,
// --insecure-skip-verify), so that such a run never erases the lineage
// (specs/stack.md section 4.8 item 4).
func carrySigners(old, l *Lock) {
	for i, a := range l.Addons {
		for _, o := range old.Addons {
			if o.Repository == a.Repository && o.Digest == a.Digest && len(a.Signers) == 0 {
				l.Addons[i].Signers = slices.Clone(o.Signers)
			}
		}
	}
}

func overlap(a, b []Signer) bool {
	for _, s := range a {
		if slices.ContainsFunc(b, func(t Signer) bool { return sameLineage(s, t) }) {
			return true
		}
	}
	return false
}

// sameLineage reports whether a and b are the same signer for lineage
// (specs/stack.md section 4.8 item 2): keys by id, keyless signers by
// issuer and lineageSubject.
func sameLineage(a, b Signer) bool {
	return a.KeyID == b.KeyID && a.Issuer == b.Issuer && lineageSubject(a.Subject) == lineageSubject(b.Subject)
}

// lineageSubject is subject without the git ref of a workflow identity:
// when the text after its last '@' begins with "refs/", that '@' and all
// after it are cut (specs/stack.md section 4.8 item 2).
func lineageSubject(subject string) string {
	if i := strings.LastIndexByte(subject, '@'); i >= 0 && strings.HasPrefix(subject[i+1:], "refs/") {
		return subject[:i]
	}
	return subject
}

func signerList(ss []Signer) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return strings.Join(parts, ", ")
}
