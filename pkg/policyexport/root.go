package policyexport

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/addonpack/addonpack/pkg/verify"
)

// rootParts is the public material of a Sigstore trusted_root.json (the
// bytes a policy pinned, already checked by verify), as PEM for consumers
// that take it piecewise (Kyverno's keyless attestor).
type rootParts struct {
	CAs    []string // each CA's chain, PEM, in the root's order
	TLogs  []logPart
	CTLogs []logPart
	TSAs   []string // each timestamping authority's chain, PEM
	// Ends names the parts with an end of validity (validFor.end).
	Ends []string
}

type logPart struct{ URL, PEM string }

type rootJSON struct {
	CertificateAuthorities []authorityJSON `json:"certificateAuthorities"`
	TLogs                  []logJSON       `json:"tlogs"`
	CTLogs                 []logJSON       `json:"ctlogs"`
	TimestampAuthorities   []authorityJSON `json:"timestampAuthorities"`
}

type authorityJSON struct {
	URI       string `json:"uri"`
	CertChain struct {
		Certificates []struct {
			RawBytes []byte `json:"rawBytes"`
		} `json:"certificates"`
	} `json:"certChain"`
	ValidFor window `json:"validFor"`
}

type logJSON struct {
	BaseURL   string `json:"baseUrl"`
	PublicKey struct {
		RawBytes []byte `json:"rawBytes"`
		ValidFor window `json:"validFor"`
	} `json:"publicKey"`
}

type window struct {
	End string `json:"end"`
}

// parseRoot reads the parts of tr's trusted_root.json.
func parseRoot(tr *verify.TrustedRoot) (rootParts, error) {
	var r rootJSON
	if err := json.Unmarshal(tr.Bytes(), &r); err != nil {
		return rootParts{}, fmt.Errorf("trusted root %q: %w", tr.Name, err)
	}
	var p rootParts
	chain := func(a authorityJSON, what string) string {
		var b strings.Builder
		for _, c := range a.CertChain.Certificates {
			b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.RawBytes}))
		}
		if a.ValidFor.End != "" {
			p.Ends = append(p.Ends, fmt.Sprintf("%s %s (until %s)", what, a.URI, a.ValidFor.End))
		}
		return b.String()
	}
	log := func(l logJSON, what string) logPart {
		if l.PublicKey.ValidFor.End != "" {
			p.Ends = append(p.Ends, fmt.Sprintf("%s %s (until %s)", what, l.BaseURL, l.PublicKey.ValidFor.End))
		}
		return logPart{URL: l.BaseURL, PEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: l.PublicKey.RawBytes}))}
	}
	for _, a := range r.CertificateAuthorities {
		p.CAs = append(p.CAs, chain(a, "certificate authority"))
	}
	for _, a := range r.TimestampAuthorities {
		p.TSAs = append(p.TSAs, chain(a, "timestamping authority"))
	}
	for _, l := range r.TLogs {
		p.TLogs = append(p.TLogs, log(l, "transparency log"))
	}
	for _, l := range r.CTLogs {
		p.CTLogs = append(p.CTLogs, log(l, "CT log"))
	}
	return p, nil
}

// kyvernoKeyless is the keyless attestor for id under its trusted root:
// the root's CA certificates as roots, its Rekor log (required when it has
// one), its CT log (an SCT required when it has one) and its TSA chain;
// with what Kyverno's attestor cannot say of the root.
func kyvernoKeyless(where string, id verify.Identity) (map[string]any, []string, error) {
	p, err := parseRoot(id.Root)
	if err != nil {
		return nil, nil, err
	}
	at := fmt.Sprintf("%s: identity %q trusted root %q", where, id.Name, id.Root.Name)
	var lost []string
	kl := map[string]any{
		"issuerRegExp": exact(id.Issuer, id.IssuerRegexp), "subjectRegExp": exact(id.Subject, id.SubjectRegexp),
		"roots": strings.Join(p.CAs, ""),
	}
	switch len(p.TLogs) {
	case 0:
		kl["rekor"] = map[string]any{"url": rekorURL, "ignoreTlog": true}
	default:
		kl["rekor"] = map[string]any{"url": p.TLogs[0].URL, "pubkey": p.TLogs[0].PEM}
	}
	ctlog := map[string]any{}
	if len(p.CTLogs) == 0 {
		ctlog["ignoreSCT"] = true
	} else {
		ctlog["pubkey"] = p.CTLogs[0].PEM
	}
	if len(p.TSAs) > 0 {
		ctlog["tsaCertChain"] = p.TSAs[0]
		lost = append(lost, at+": a signed timestamp is required (Kyverno checks one when the signature has it)")
	}
	kl["ctlog"] = ctlog
	for _, c := range []struct {
		what string
		n    int
	}{{"transparency logs", len(p.TLogs)}, {"CT logs", len(p.CTLogs)}, {"timestamping authorities", len(p.TSAs)}} {
		if c.n > 1 {
			lost = append(lost, fmt.Sprintf("%s: %d %s (Kyverno takes one; this export uses the first)", at, c.n, c.what))
		}
	}
	if len(p.Ends) > 0 {
		lost = append(lost, fmt.Sprintf("%s: validity ends of %s", at, strings.Join(p.Ends, ", ")))
	}
	if d := id.Root.Demanded(); len(d) > 0 {
		lost = append(lost, fmt.Sprintf("%s: require [%s]", at, strings.Join(d, ", ")))
	}
	return kl, lost, nil
}
