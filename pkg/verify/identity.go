package verify

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
)

// Identity is a keyless signer: certificates issued under Root whose OIDC
// issuer, subject (SAN) and listed Fulcio extensions match.
type Identity struct {
	Name          string
	Root          *TrustedRoot
	Issuer        string
	IssuerRegexp  string
	Subject       string
	SubjectRegexp string
	// Extensions lists exact values of Fulcio extensions (empty fields are
	// not checked); its Issuer field must be empty (Issuer above says it).
	Extensions certificate.Extensions
	matcher    sgverify.CertificateIdentity
}

// compile checks id and prepares its matcher.
func (id *Identity) compile() error {
	if id.Root == nil {
		return fmt.Errorf("%w: identity %q has no trusted root", ErrPolicy, id.Name)
	}
	if (id.Issuer == "") == (id.IssuerRegexp == "") || (id.Subject == "") == (id.SubjectRegexp == "") {
		return fmt.Errorf("%w: identity %q needs exactly one of issuer/issuerRegexp and one of subject/subjectRegexp", ErrPolicy, id.Name)
	}
	if id.Extensions.Issuer != "" {
		return fmt.Errorf("%w: identity %q: the issuer goes in issuer, not in extensions", ErrPolicy, id.Name)
	}
	san, err := sgverify.NewSANMatcher(id.Subject, id.SubjectRegexp)
	if err != nil {
		return fmt.Errorf("%w: identity %q: subjectRegexp: %w", ErrPolicy, id.Name, err)
	}
	iss, err := sgverify.NewIssuerMatcher(id.Issuer, id.IssuerRegexp)
	if err != nil {
		return fmt.Errorf("%w: identity %q: issuerRegexp: %w", ErrPolicy, id.Name, err)
	}
	if id.matcher, err = sgverify.NewCertificateIdentity(san, iss, id.Extensions); err != nil {
		return fmt.Errorf("%w: identity %q: %w", ErrPolicy, id.Name, err)
	}
	return nil
}

// match reports why the certificate summarised by s is not id's (nil when
// it is).
func (id *Identity) match(s certificate.Summary) error {
	m := id.matcher
	if m.Issuer.Issuer == "" && m.Issuer.Regexp.String() == "" {
		// A Policy built in Go without validation: compile a copy (a
		// Policy is immutable and shared).
		c := *id
		if err := c.compile(); err != nil {
			return err
		}
		m = c.matcher
	}
	return m.Verify(s)
}

// parseExtensions decodes a policy's "extensions" map (Sigstore's names,
// e.g. githubWorkflowRepository) strictly.
func parseExtensions(m map[string]string) (certificate.Extensions, error) {
	var e certificate.Extensions
	if len(m) == 0 {
		return e, nil
	}
	if _, ok := m["issuer"]; ok {
		return e, fmt.Errorf("the issuer goes in issuer, not in extensions")
	}
	b, _ := json.Marshal(m)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return e, dec.Decode(&e)
}

// identitySigner is what makes keyless signers distinct (specs/policy.md):
// a verified certificate's (issuer, subject) pair, however many policy
// identities it matches and however often it signed.
func identitySigner(c *CertIdentity) string {
	return c.Subject + " (issuer " + c.Issuer + ")"
}
