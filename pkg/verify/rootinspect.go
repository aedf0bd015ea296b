package verify

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// InspectTrustedRoot reads the trusted_root.json at path as keyless
// verification reads it (the same bounds and refusals) and describes it as
// of now (`addonpack trusted-root inspect`).
func InspectTrustedRoot(path string, now time.Time) (*RootReport, error) {
	raw, err := readTrustedRoot(path)
	if err != nil {
		return nil, err
	}
	r, err := ParseTrustedRoot(path, raw, path, "")
	if err != nil {
		return nil, err
	}
	return r.Report(now)
}

// WriteText writes rep for a person: one block per part, windows in UTC
// (specs/cli-output.md, trusted-root inspect). The warnings are not in it:
// the CLI writes them to stderr, as verify does.
func (rep *RootReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digest: %s\nmediaType: %s\n", rep.Digest, rep.MediaType)
	section := func(title string, n int) {
		fmt.Fprintf(&b, "\n%s (%d)\n", title, n)
	}
	authorities := func(as []AuthorityPart) {
		for _, a := range as {
			fmt.Fprintf(&b, "- %s\n  uri: %s\n  valid for: %s\n  ends: %s\n", a.Subject, orElse(a.URI, "-"), a.ValidFor, at(a.Ends))
			for _, c := range a.Chain {
				fmt.Fprintf(&b, "  cert: %s (issuer %s) %s to %s\n", c.Subject, c.Issuer, c.NotBefore.Format(time.RFC3339), c.NotAfter.Format(time.RFC3339))
			}
		}
	}
	logs := func(ls []LogPart, rekor bool) {
		for _, l := range ls {
			fmt.Fprintf(&b, "- %s\n  log id: %s\n  key: %s, %s\n  valid for: %s\n", orElse(l.BaseURL, "-"), l.LogID, l.KeyType, l.HashAlgorithm, l.ValidFor)
			if rekor {
				fmt.Fprintf(&b, "  rekor api: %s\n", l.RekorAPI)
			}
		}
	}
	section("certificate authorities", len(rep.CertificateAuthorities))
	authorities(rep.CertificateAuthorities)
	section("Rekor logs (tlogs)", len(rep.TransparencyLogs))
	logs(rep.TransparencyLogs, true)
	section("CT logs", len(rep.CTLogs))
	logs(rep.CTLogs, false)
	section("timestamping authorities", len(rep.TimestampAuthorities))
	authorities(rep.TimestampAuthorities)
	_, err := io.WriteString(w, b.String())
	return err
}

// String writes a window as "START to END", an open end as "open".
func (v Window) String() string {
	return at(v.Start) + " to " + at(v.End)
}

func at(t *time.Time) string {
	if t == nil {
		return "open"
	}
	return t.UTC().Format(time.RFC3339)
}
