package policyexport

import (
	"encoding/base64"
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
	CAs []string // each CA's chain, PEM, in the root's order
	// CAMeta and TSAMeta are the subjects and URIs of CAs and TSAs.
	CAMeta, TSAMeta []authorityMeta
	TLogs           []logPart
	CTLogs          []logPart
	TSAs            []string // each timestamping authority's chain, PEM
	// Ends names the parts with an end of validity (validFor.end).
	Ends []string
}

type logPart struct{ URL, PEM, Hash string }

type authorityMeta struct{ Organization, CommonName, URI string }

type rootJSON struct {
	CertificateAuthorities []authorityJSON `json:"certificateAuthorities"`
	TLogs                  []logJSON       `json:"tlogs"`
	CTLogs                 []logJSON       `json:"ctlogs"`
	TimestampAuthorities   []authorityJSON `json:"timestampAuthorities"`
}

type authorityJSON struct {
	Subject struct {
		Organization string `json:"organization"`
		CommonName   string `json:"commonName"`
	} `json:"subject"`
	URI       string `json:"uri"`
	CertChain struct {
		Certificates []struct {
			RawBytes []byte `json:"rawBytes"`
		} `json:"certificates"`
	} `json:"certChain"`
	ValidFor window `json:"validFor"`
}

type logJSON struct {
	BaseURL       string `json:"baseUrl"`
	HashAlgorithm string `json:"hashAlgorithm"`
	PublicKey     struct {
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
		// policy-controller's names of the root's SHA2_256, SHA2_384, SHA2_512
		hash := strings.TrimPrefix(l.HashAlgorithm, "SHA2_")
		if hash == "" {
			hash = "256" // the protobuf default
		}
		return logPart{URL: l.BaseURL, Hash: "sha-" + hash, PEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: l.PublicKey.RawBytes}))}
	}
	for _, a := range r.CertificateAuthorities {
		p.CAs = append(p.CAs, chain(a, "certificate authority"))
		p.CAMeta = append(p.CAMeta, authorityMeta{a.Subject.Organization, a.Subject.CommonName, a.URI})
	}
	for _, a := range r.TimestampAuthorities {
		p.TSAs = append(p.TSAs, chain(a, "timestamping authority"))
		p.TSAMeta = append(p.TSAMeta, authorityMeta{a.Subject.Organization, a.Subject.CommonName, a.URI})
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

// trustRoot is a policy-controller TrustRoot (policy.sigstore.dev/v1alpha1)
// holding tr's material as sigstoreKeys (byte fields base64 of PEM, as its
// API takes them), with what policy-controller drops of it.
func trustRoot(name string, tr *verify.TrustedRoot) (map[string]any, rootParts, []string, error) {
	p, err := parseRoot(tr)
	if err != nil {
		return nil, p, nil, err
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	authorities := func(chains []string, meta []authorityMeta) []any {
		var out []any
		for i, c := range chains {
			out = append(out, map[string]any{
				"subject":   map[string]any{"organization": meta[i].Organization, "commonName": meta[i].CommonName},
				"uri":       meta[i].URI,
				"certChain": b64(c),
			})
		}
		return out
	}
	logs := func(ls []logPart) []any {
		var out []any
		for _, l := range ls {
			out = append(out, map[string]any{"baseURL": l.URL, "hashAlgorithm": l.Hash, "publicKey": b64(l.PEM)})
		}
		return out
	}
	keys := map[string]any{"certificateAuthorities": authorities(p.CAs, p.CAMeta)}
	for k, v := range map[string][]any{"tLogs": logs(p.TLogs), "ctLogs": logs(p.CTLogs), "timestampAuthorities": authorities(p.TSAs, p.TSAMeta)} {
		if len(v) > 0 {
			keys[k] = v
		}
	}
	at := fmt.Sprintf("trusted root %q", tr.Name)
	var lost []string
	if len(p.Ends) > 0 {
		lost = append(lost, fmt.Sprintf("%s: validity ends of %s", at, strings.Join(p.Ends, ", ")))
	}
	if len(p.TSAs) > 0 {
		lost = append(lost, at+": a signed timestamp is required (policy-controller checks one when the signature has it)")
		if len(p.TLogs) > 0 {
			lost = append(lost, at+": a transparency log entry is required (policy-controller skips the log when it checks a timestamp)")
		}
	}
	if d := tr.Demanded(); len(d) > 0 {
		lost = append(lost, fmt.Sprintf("%s: require [%s]", at, strings.Join(d, ", ")))
	}
	obj := map[string]any{
		"apiVersion": "policy.sigstore.dev/v1alpha1", "kind": "TrustRoot",
		"metadata": map[string]any{"name": name, "labels": labels()},
		"spec":     map[string]any{"sigstoreKeys": keys},
	}
	return obj, p, lost, nil
}
