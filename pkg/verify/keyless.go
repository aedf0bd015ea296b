package verify

import (
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
)

// CertIdentity is a verified certificate's identity, in the form a
// policy's identities take (specs/policy.md), so that `verify -o json` and
// `inspect --signatures` print what a user can copy into a policy.
type CertIdentity struct {
	Issuer     string                  `json:"issuer"`
	Subject    string                  `json:"subject"`
	Extensions *certificate.Extensions `json:"extensions,omitempty"`
}

func certIdentity(s certificate.Summary) *CertIdentity {
	ext := s.Extensions
	ext.Issuer = "" // said once, as issuer
	out := &CertIdentity{Issuer: s.Issuer, Subject: s.SubjectAlternativeName}
	if ext != (certificate.Extensions{}) {
		out.Extensions = &ext
	}
	return out
}

// keyless verifies entity (a Sigstore bundle or a classic keyless layer)
// against the trusted root of each identity of the scope, offline, with
// the checks the root requires (TrustedRoot.verifier), and returns the
// identity its certificate matches. skipTimestamp leaves RFC 3161
// timestamps to the caller (classic attestations timestamp the envelope,
// not the signature).
func (ck checker) keyless(cd *candidate, entity sgverify.SignedEntity, artifact sgverify.ArtifactPolicyOption, skipTimestamp bool) (*Identity, *sgverify.VerificationResult, error) {
	ids := ck.scope.Identities
	if len(ids) == 0 {
		return nil, nil, fmt.Errorf("%w: a keyless signature, and the policy trusts no identities (only keys)", ErrUntrusted)
	}
	var proofErrs []error
	var mismatch []string
	var seen *CertIdentity
	tried := map[*TrustedRoot]bool{}
	for i := range ids {
		r := ids[i].Root
		if tried[r] {
			continue
		}
		tried[r] = true
		entity, skipTimestamp := entity, skipTimestamp
		if c, ok := entity.(*classicEntity); ok {
			entity, skipTimestamp = c.forRoot(r, skipTimestamp)
		}
		if err := precheck(r, entity, skipTimestamp); err != nil {
			proofErrs = append(proofErrs, fmt.Errorf("trusted root %q (%s): %w", r.Name, r.Digest, err))
			continue
		}
		v, err := r.verifier(skipTimestamp, !logsTime(entity))
		if err != nil {
			return nil, nil, fmt.Errorf("%w: trusted root %q: %w", ErrKeyless, r.Name, err)
		}
		res, err := v.Verify(entity, sgverify.NewPolicy(artifact, sgverify.WithoutIdentitiesUnsafe()))
		if err != nil {
			proofErrs = append(proofErrs, fmt.Errorf("trusted root %q (%s): %w%s", r.Name, r.Digest, err, caHint(r, entity)))
			continue
		}
		if res.Signature == nil || res.Signature.Certificate == nil {
			proofErrs = append(proofErrs, fmt.Errorf("trusted root %q: no certificate was verified", r.Name))
			continue
		}
		sum := *res.Signature.Certificate
		seen = certIdentity(sum)
		cd.Identity = seen
		for j := range ids {
			if ids[j].Root != r {
				continue
			}
			if err := ids[j].match(sum); err != nil {
				mismatch = append(mismatch, fmt.Sprintf("%s: %v", ids[j].Name, err))
				continue
			}
			return &ids[j], res, nil
		}
	}
	if seen != nil {
		return nil, nil, fmt.Errorf("%w: certificate of issuer %q, subject %q matches none of the scope's identities (%s)",
			ErrIdentity, seen.Issuer, seen.Subject, strings.Join(mismatch, "; "))
	}
	return nil, nil, fmt.Errorf("%w: %w", ErrKeyless, errors.Join(proofErrs...))
}

// maxTlogEntries bounds the log entries of one signature whose signed entry
// timestamps precheck verifies: sigstore-go's verifier refuses more than 32
// (maxAllowedTlogEntries in its pkg/verify/tlog.go), and precheck runs
// first, so a hostile bundle must not get more verifications out of it.
const maxTlogEntries = 32

// precheck names the most common reasons a root refuses entity in words
// (sigstore-go's own messages count what verified, not why the rest did
// not): a log entry or timestamp the root requires and the entity lacks, a
// signed entry timestamp made by a key that is not the root's.
func precheck(r *TrustedRoot, entity sgverify.SignedEntity, skipTimestamp bool) error {
	req := r.Requirements()
	entries, err := entity.TlogEntries()
	if err != nil {
		return err
	}
	if req.TransparencyLog && len(entries) == 0 {
		return errors.New("no transparency-log entry, and the root lists Rekor logs, so one is required")
	}
	if len(entries) > maxTlogEntries {
		return fmt.Errorf("%d transparency-log entries, more than %d", len(entries), maxTlogEntries)
	}
	proofs, v2 := 0, 0
	for _, e := range entries {
		known := r.root.RekorLogs()[hex.EncodeToString([]byte(e.LogKeyID()))] != nil
		if e.HasInclusionProof() && known {
			proofs++ // sigstore-go verifies it against the log's checkpoint key
		}
		if e.IsRekorV2() {
			if !known && req.TransparencyLog && len(entries) == 1 {
				return fmt.Errorf("a Rekor v2 entry (index %d) of log %x, which the root does not list", e.LogIndex(), e.LogKeyID())
			}
			v2++
		}
		if !e.HasInclusionPromise() || !req.TransparencyLog {
			continue // without Rekor logs in the root, entries prove nothing and sigstore-go reads none
		}
		if err := tlog.VerifySET(e, r.root.RekorLogs()); err != nil {
			return fmt.Errorf("log entry %d of log %x: its signed entry timestamp does not verify with the root's Rekor keys: %w", e.LogIndex(), e.LogKeyID(), err)
		}
	}
	if req.InclusionProof && proofs == 0 {
		return errors.New("no transparency-log entry with an inclusion proof of the root's Rekor logs (a signed entry timestamp alone, as classic signatures and v0.1 bundles carry, is not enough), and the policy requires one (require: inclusionProof)")
	}
	if v2 > 0 && !logsTime(entity) {
		if err := rekorV2Time(r, entity, req, skipTimestamp); err != nil {
			return err
		}
	}
	if req.Timestamp && !skipTimestamp {
		ts, err := entity.Timestamps()
		if err != nil {
			return err
		}
		if len(ts) == 0 {
			return errors.New("no RFC 3161 timestamp, and the root lists timestamping authorities, so one is required")
		}
	}
	return nil
}

// logsTime reports whether a log entry of entity states when it was
// logged under the log's signature: a Rekor v1 entry's signed entry
// timestamp. A Rekor v2 entry has none (integrated time 0): it proves
// inclusion in the log at a checkpoint, not a time.
func logsTime(entity sgverify.SignedEntity) bool {
	entries, err := entity.TlogEntries()
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.HasInclusionPromise() && !e.IntegratedTime().IsZero() {
			return true
		}
	}
	return false
}

// rekorV2Time refuses a signature whose only log entries are Rekor v2
// entries unless an RFC 3161 timestamp can prove its signing time: the
// certificate (valid ten minutes) must be checked at a time someone
// trusted vouches for, and a Rekor v2 log vouches for none.
func rekorV2Time(r *TrustedRoot, entity sgverify.SignedEntity, req Requirements, skipTimestamp bool) error {
	const why = "a Rekor v2 entry proves inclusion in the log, not when the signature was made, so an RFC 3161 timestamp must prove the signing time"
	if !req.Timestamp {
		return fmt.Errorf("%s, and the root (%s) lists no timestamping authority", why, r.Digest)
	}
	if skipTimestamp {
		return nil // the caller verifies the timestamp (classic attestations)
	}
	ts, err := entity.Timestamps()
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		return fmt.Errorf("%s, and the signature has none", why)
	}
	return nil
}

// caHint explains a chain failure whose cause is the root's CA validity:
// no certificate authority of r is valid at the log entries' integrated
// times (the signing times a log proves).
func caHint(r *TrustedRoot, entity sgverify.SignedEntity) string {
	entries, _ := entity.TlogEntries()
	for _, e := range entries {
		t := e.IntegratedTime()
		if t.IsZero() {
			continue // a Rekor v2 entry: the log states no time
		}
		ok := false
		var windows []string
		for _, ca := range r.root.FulcioCertificateAuthorities() {
			f, isFulcio := ca.(*root.FulcioCertificateAuthority)
			if !isFulcio {
				ok = true
				continue
			}
			windows = append(windows, f.ValidityPeriodStart.UTC().Format(time.RFC3339)+" to "+f.ValidityPeriodEnd.UTC().Format(time.RFC3339))
			ok = ok || (!t.Before(f.ValidityPeriodStart) && (f.ValidityPeriodEnd.IsZero() || !t.After(f.ValidityPeriodEnd)))
		}
		if !ok {
			return fmt.Sprintf(" (signed at %s, when none of the root's certificate authorities was valid: %s)", t.UTC().Format(time.RFC3339), strings.Join(windows, ", "))
		}
	}
	return ""
}

// leafCertificate parses a PEM or DER certificate.
func leafCertificate(b []byte) (*x509.Certificate, error) {
	certs, err := parseCertificates(b)
	if err != nil || len(certs) == 0 {
		return nil, fmt.Errorf("%w: certificate: %v", ErrMalformed, err)
	}
	return certs[0], nil
}
