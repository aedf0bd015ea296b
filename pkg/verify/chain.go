package verify

import (
	"bytes"
	"crypto/x509"
	"encoding/asn1"
	"fmt"
	"slices"
	"time"
)

// chainRole says what a chain is trusted for.
type chainRole struct {
	// leaf: the first certificate is the role's signing certificate (the
	// TSA's), not a CA; every other certificate is a CA.
	leaf bool
	// purpose is the extended key usage verification asks of the chain
	// (x509.Verify's KeyUsages): every CA that restricts its extended key
	// usage must allow it.
	purpose     x509.ExtKeyUsage
	purposeName string
}

var (
	fulcioRole = chainRole{purpose: x509.ExtKeyUsageCodeSigning, purposeName: "code signing"}
	tsaRole    = chainRole{leaf: true, purpose: x509.ExtKeyUsageTimeStamping, purposeName: "time stamping"}
	oidEKU     = asn1.ObjectIdentifier{2, 5, 29, 37}
)

// checkChain checks chain as role's, from its first certificate to its
// self-signed root, at now (specs/policy.md, "Trust material given to
// trusted-root create"). Each certificate is checked on its own first, so
// that a leaf posing as an issuer is named as such rather than as a
// signature that does not verify.
func checkChain(label string, chain []*x509.Certificate, role chainRole, now time.Time) error {
	at := func(i int) string {
		return fmt.Sprintf("%s: certificate %d of %d (%s)", label, i+1, len(chain), subject(chain[i]))
	}
	for i, c := range chain {
		var err error
		if role.leaf && i == 0 {
			err = checkTSALeaf(c)
		} else {
			below := i
			if role.leaf {
				below--
			}
			err = checkCA(c, below, role)
		}
		if err == nil {
			err = checkCertificate(c, now)
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrTrustMaterial, at(i), err)
		}
		for j := range i {
			if bytes.Equal(chain[j].Raw, c.Raw) {
				return fmt.Errorf("%w: %s: the same certificate as certificate %d", ErrTrustMaterial, at(i), j+1)
			}
		}
	}
	for i, c := range chain {
		parent, which := c, "itself (the last certificate is the root, self-signed)"
		if i+1 < len(chain) {
			parent, which = chain[i+1], fmt.Sprintf("certificate %d (%s), the next in the chain", i+2, subject(chain[i+1]))
		}
		if !bytes.Equal(c.RawIssuer, parent.RawSubject) {
			return fmt.Errorf("%w: %s: issued by %s, not by %s", ErrTrustMaterial, at(i), c.Issuer, which)
		}
		if err := c.CheckSignatureFrom(parent); err != nil {
			return fmt.Errorf("%w: %s: not signed by %s: %w", ErrTrustMaterial, at(i), which, err)
		}
	}
	return nil
}

// checkCA checks c as a certificate authority with below CAs under it in
// the chain.
func checkCA(c *x509.Certificate, below int, role chainRole) error {
	if !c.BasicConstraintsValid || !c.IsCA {
		return fmt.Errorf("not a certificate authority (no basic constraints with CA true): a leaf certificate cannot be trusted as an issuer")
	}
	if c.KeyUsage != 0 && c.KeyUsage&x509.KeyUsageCertSign == 0 {
		return fmt.Errorf("a CA whose key usage does not include certificate signing")
	}
	if (c.MaxPathLen > 0 || c.MaxPathLenZero) && below > c.MaxPathLen {
		return fmt.Errorf("path length constraint %d, and %d CA certificate(s) below it in the chain", c.MaxPathLen, below)
	}
	if len(c.ExtKeyUsage)+len(c.UnknownExtKeyUsage) > 0 &&
		!slices.Contains(c.ExtKeyUsage, role.purpose) && !slices.Contains(c.ExtKeyUsage, x509.ExtKeyUsageAny) {
		return fmt.Errorf("a CA whose extended key usage excludes %s, which verification requires of the chain", role.purposeName)
	}
	return nil
}

// checkTSALeaf checks c as a timestamping authority's signing certificate
// (RFC 3161 section 2.3).
func checkTSALeaf(c *x509.Certificate) error {
	if c.BasicConstraintsValid && c.IsCA {
		return fmt.Errorf("a CA certificate as the TSA's signing certificate: the chain starts with the certificate that signs timestamps")
	}
	critical := false
	for _, e := range c.Extensions {
		critical = critical || e.Id.Equal(oidEKU) && e.Critical
	}
	if !critical || len(c.ExtKeyUsage) != 1 || c.ExtKeyUsage[0] != x509.ExtKeyUsageTimeStamping || len(c.UnknownExtKeyUsage) > 0 {
		return fmt.Errorf("a TSA signing certificate needs exactly one extended key usage, time stamping, in a critical extension (RFC 3161 section 2.3)")
	}
	if c.KeyUsage != 0 && c.KeyUsage&(x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment) == 0 {
		return fmt.Errorf("a TSA signing certificate whose key usage allows neither digital signature nor content commitment")
	}
	return nil
}

// checkCertificate checks what every certificate of any chain needs.
func checkCertificate(c *x509.Certificate, now time.Time) error {
	if err := supportedKey(c.PublicKey); err != nil {
		return err
	}
	if len(c.UnhandledCriticalExtensions) > 0 {
		return fmt.Errorf("critical extension(s) %v that verification does not understand", c.UnhandledCriticalExtensions)
	}
	return validAt(c, now)
}
