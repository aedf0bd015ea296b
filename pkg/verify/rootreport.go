package verify

import (
	"bytes"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"time"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	prototrustroot "github.com/sigstore/protobuf-specs/gen/pb-go/trustroot/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// RootReport is what a trusted root holds, as `trusted-root inspect` shows
// it (specs/cli-output.md): every certificate authority, Rekor log, CT log
// and timestamping authority with the validity window the root states and,
// for the authorities, their certificates' own windows. Ends is when a part
// stops being valid: the earlier of the root's end and the chain's.
type RootReport struct {
	Digest                 string          `json:"digest"`
	MediaType              string          `json:"mediaType"`
	CertificateAuthorities []AuthorityPart `json:"certificateAuthorities"`
	TransparencyLogs       []LogPart       `json:"tlogs"`
	CTLogs                 []LogPart       `json:"ctlogs"`
	TimestampAuthorities   []AuthorityPart `json:"timestampAuthorities"`
	// Warnings are the parts that stop being valid soon or have stopped
	// (TrustedRoot.Ageing), in the words verify prints them.
	Warnings []string `json:"warnings"`
}

// Window is a validity period; a nil end is open.
type Window struct {
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
}

// AuthorityPart is a certificate authority or a timestamping authority.
type AuthorityPart struct {
	URI      string `json:"uri,omitempty"`
	Subject  string `json:"subject"` // of the chain's first certificate
	Operator string `json:"operator,omitempty"`
	ValidFor Window `json:"validFor"`
	// Ends is the earlier of ValidFor.End and every certificate's notAfter.
	Ends  *time.Time    `json:"ends,omitempty"`
	Chain []Certificate `json:"chain"`
}

// Certificate is one certificate of an authority's chain, first to last as
// the root lists them (the issuing or signing certificate first).
type Certificate struct {
	Subject   string    `json:"subject"`
	Issuer    string    `json:"issuer"`
	NotBefore time.Time `json:"notBefore"`
	NotAfter  time.Time `json:"notAfter"`
	CA        bool      `json:"ca"`
}

// LogPart is a transparency log (Rekor) or a CT log.
type LogPart struct {
	BaseURL         string `json:"baseUrl"`
	LogID           string `json:"logId"` // hex
	CheckpointKeyID string `json:"checkpointKeyId,omitempty"`
	KeyType         string `json:"keyType"`
	HashAlgorithm   string `json:"hashAlgorithm"`
	Operator        string `json:"operator,omitempty"`
	ValidFor        Window `json:"validFor"`
	// RekorAPI is, for a Rekor log, the API version as far as the root
	// says it (it has no version field): "v2" when its checkpointKeyId
	// equals its logId (protobuf-specs: "For Rekor v2 instances, log_id
	// and checkpoint_key_id will be set to the same value"), "v1" when it
	// has another checkpointKeyId, "unstated" without one (then each
	// entry's checkpoint decides at verification).
	RekorAPI string `json:"rekorApi,omitempty"`
}

// Report describes r as of now: its parts and the warnings of Ageing
// within AgeingWindow.
func (r *TrustedRoot) Report(now time.Time) (*RootReport, error) {
	var pb prototrustroot.TrustedRoot
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(r.raw, &pb); err != nil {
		return nil, fmt.Errorf("trusted root %q: %w: %w", r.Name, ErrPolicy, err)
	}
	rep := &RootReport{Digest: r.Digest, MediaType: pb.GetMediaType(), Warnings: []string{}}
	for i, ca := range pb.GetCertificateAuthorities() {
		a, err := authorityPart(ca)
		if err != nil {
			return nil, fmt.Errorf("trusted root %q: certificateAuthorities[%d]: %w: %w", r.Name, i, ErrPolicy, err)
		}
		rep.CertificateAuthorities = append(rep.CertificateAuthorities, a)
	}
	for i, ta := range pb.GetTimestampAuthorities() {
		a, err := authorityPart(ta)
		if err != nil {
			return nil, fmt.Errorf("trusted root %q: timestampAuthorities[%d]: %w: %w", r.Name, i, ErrPolicy, err)
		}
		rep.TimestampAuthorities = append(rep.TimestampAuthorities, a)
	}
	for _, l := range pb.GetTlogs() {
		p := logPart(l)
		p.RekorAPI = rekorAPI(l)
		rep.TransparencyLogs = append(rep.TransparencyLogs, p)
	}
	for _, l := range pb.GetCtlogs() {
		rep.CTLogs = append(rep.CTLogs, logPart(l))
	}
	for _, a := range ageing(r, rep, now, AgeingWindow) {
		rep.Warnings = append(rep.Warnings, a.String())
	}
	return rep, nil
}

func authorityPart(ca *prototrustroot.CertificateAuthority) (AuthorityPart, error) {
	a := AuthorityPart{URI: ca.GetUri(), Operator: ca.GetOperator(), ValidFor: window(ca.GetValidFor()), Chain: []Certificate{}}
	a.Ends = a.ValidFor.End
	for i, c := range ca.GetCertChain().GetCertificates() {
		cert, err := x509.ParseCertificate(c.GetRawBytes())
		if err != nil {
			return a, fmt.Errorf("certificate %d: %w", i, err)
		}
		if i == 0 {
			a.Subject = cert.Subject.String()
		}
		a.Chain = append(a.Chain, Certificate{Subject: cert.Subject.String(), Issuer: cert.Issuer.String(),
			NotBefore: cert.NotBefore.UTC(), NotAfter: cert.NotAfter.UTC(), CA: cert.IsCA})
		if na := cert.NotAfter.UTC(); a.Ends == nil || na.Before(*a.Ends) {
			a.Ends = &na
		}
	}
	if len(a.Chain) == 0 {
		return a, fmt.Errorf("no certificates")
	}
	return a, nil
}

func logPart(l *prototrustroot.TransparencyLogInstance) LogPart {
	p := LogPart{BaseURL: l.GetBaseUrl(), LogID: hex.EncodeToString(l.GetLogId().GetKeyId()),
		KeyType: l.GetPublicKey().GetKeyDetails().String(), HashAlgorithm: l.GetHashAlgorithm().String(),
		Operator: l.GetOperator(), ValidFor: window(l.GetPublicKey().GetValidFor())}
	if ck := l.GetCheckpointKeyId().GetKeyId(); len(ck) > 0 {
		p.CheckpointKeyID = hex.EncodeToString(ck)
	}
	return p
}

func rekorAPI(l *prototrustroot.TransparencyLogInstance) string {
	ck := l.GetCheckpointKeyId().GetKeyId()
	switch {
	case len(ck) == 0:
		return "unstated"
	case bytes.Equal(ck, l.GetLogId().GetKeyId()):
		return "v2"
	}
	return "v1"
}

func window(tr *protocommon.TimeRange) Window {
	at := func(ts *timestamppb.Timestamp) *time.Time {
		if ts == nil {
			return nil
		}
		t := ts.AsTime().UTC()
		return &t
	}
	return Window{Start: at(tr.GetStart()), End: at(tr.GetEnd())}
}
