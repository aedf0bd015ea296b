package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/sigstore/sigstore-go/pkg/root"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
)

// MaxTrustedRootSize bounds a trusted_root.json read (the public-good root
// is about 10 KiB).
const MaxTrustedRootSize = 1 << 20

// TrustedRoot is a Sigstore trusted root (trusted_root.json) the policy
// pins by digest: certificate authorities, Rekor logs, CT logs and
// timestamping authorities. Keyless signatures are verified against it and
// nothing else, offline.
type TrustedRoot struct {
	Name   string
	Digest string // "sha256:<hex>" of the file's bytes
	root   *root.TrustedRoot
	raw    []byte // the file's bytes, for Report
	// demanded are the checks the policy's `require` names (Require):
	// added to those the root's content derives, never subtracted.
	demanded []string
}

// Requirements are the checks a root makes mandatory (specs/policy.md,
// "What a keyless signature must prove"): derived from its content, never
// weakened by a policy; a policy may demand more (Require).
type Requirements struct {
	TransparencyLog bool `json:"transparencyLog"` // the root has Rekor logs
	Timestamp       bool `json:"timestamp"`       // the root has timestamping authorities
	SCT             bool `json:"sct"`             // the root has CT logs
	// InclusionProof demands a log entry with an inclusion proof (and
	// signed checkpoint), not only a signed entry timestamp: never derived
	// from a root, only demanded by a policy.
	InclusionProof bool `json:"inclusionProof,omitempty"`
}

// LoadTrustedRoot reads a trusted_root.json. When want is not empty the
// file's SHA-256 must equal it (ErrRootDigest otherwise): the file has no
// integrity of its own.
func LoadTrustedRoot(name, path, want string) (*TrustedRoot, error) {
	raw, err := readTrustedRoot(path)
	if err != nil {
		return nil, err
	}
	return ParseTrustedRoot(name, raw, path, want)
}

// ReadTrustedRoot reads a trusted_root.json keyless verification accepts
// and returns its bytes, unchanged, with its digest: for carrying it
// elsewhere (copy --to-tarball), where a policy will pin that digest.
func ReadTrustedRoot(path string) ([]byte, string, error) {
	raw, err := readTrustedRoot(path)
	if err != nil {
		return nil, "", err
	}
	r, err := ParseTrustedRoot("carried", raw, path, "")
	if err != nil {
		return nil, "", err
	}
	return raw, r.Digest, nil
}

func readTrustedRoot(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trusted root %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxTrustedRootSize+1))
	if err != nil { // e.g. a directory: invalid as the bytes it yielded would be
		return nil, fmt.Errorf("trusted root %s: %w: %w", path, ErrPolicy, err)
	}
	if len(raw) > MaxTrustedRootSize {
		return nil, fmt.Errorf("trusted root %s: %w: larger than %d bytes", path, ErrPolicy, MaxTrustedRootSize)
	}
	return raw, nil
}

// ParseTrustedRoot is LoadTrustedRoot on bytes; where names them in messages.
func ParseTrustedRoot(name string, raw []byte, where, want string) (*TrustedRoot, error) {
	sum := sha256.Sum256(raw)
	got := "sha256:" + hex.EncodeToString(sum[:])
	if want != "" && got != want {
		return nil, fmt.Errorf("trusted root %q (%s): %w: %w: the file's digest is %s, the policy pins %s", name, where, ErrPolicy, ErrRootDigest, got, want)
	}
	tr, err := root.NewTrustedRootFromJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("trusted root %q (%s): %w: %w", name, where, ErrPolicy, err)
	}
	r := &TrustedRoot{Name: name, Digest: got, root: tr, raw: raw}
	if len(tr.FulcioCertificateAuthorities()) == 0 {
		return nil, fmt.Errorf("trusted root %q (%s): %w: no certificate authorities", name, where, ErrPolicy)
	}
	if req := r.Requirements(); !req.TransparencyLog && !req.Timestamp {
		return nil, fmt.Errorf("trusted root %q (%s): %w: neither Rekor logs nor timestamping authorities, so no signing time can be verified", name, where, ErrPolicy)
	}
	return r, nil
}

// Requirements returns the checks r makes mandatory: those its content
// derives and those the policy demands (Require).
func (r *TrustedRoot) Requirements() Requirements {
	req := Requirements{
		TransparencyLog: len(r.root.RekorLogs()) > 0,
		Timestamp:       len(r.root.TimestampingAuthorities()) > 0,
		SCT:             len(r.root.CTLogs()) > 0,
	}
	for _, d := range r.demanded {
		req.InclusionProof = req.InclusionProof || d == RequireInclusionProof
	}
	return req
}

// The checks a policy may demand of a trusted root (specs/policy.md,
// trustedRoots[].require).
const (
	RequireTransparencyLog = "transparencyLog"
	RequireTimestamp       = "timestamp"
	RequireSCT             = "sct"
	RequireInclusionProof  = "inclusionProof"
)

// Require returns a copy of r that also demands the checks named (Require…
// constants). A check the root cannot make (a timestamp, and the root lists
// no timestamping authority) is an invalid policy: demanding it must not
// silently verify less than the policy says. Demanding what the root's
// content already derives is allowed and changes nothing but the policy
// digest: it states the policy's intent and fails to load if the pinned
// root is ever replaced by one that cannot make the check.
func (r *TrustedRoot) Require(checks []string) (*TrustedRoot, error) {
	have := r.Requirements()
	can := map[string]struct {
		ok   bool
		lack string
	}{
		RequireTransparencyLog: {have.TransparencyLog, "no Rekor logs (tlogs)"},
		RequireInclusionProof:  {have.TransparencyLog, "no Rekor logs (tlogs)"},
		RequireTimestamp:       {have.Timestamp, "no timestamping authorities (timestampAuthorities)"},
		RequireSCT:             {have.SCT, "no CT logs (ctlogs)"},
	}
	q := *r
	q.demanded = nil
	for _, c := range sorted(checks) {
		v, known := can[c]
		switch {
		case !known:
			return nil, fmt.Errorf("%w: trusted root %q: require: unknown check %q (one of %s, %s, %s, %s)", ErrPolicy, r.Name, c,
				RequireTransparencyLog, RequireTimestamp, RequireSCT, RequireInclusionProof)
		case !v.ok:
			return nil, fmt.Errorf("%w: trusted root %q: require: %s, but the root (%s) lists %s, so it can never be checked", ErrPolicy, r.Name, c, r.Digest, v.lack)
		}
		if len(q.demanded) == 0 || q.demanded[len(q.demanded)-1] != c {
			q.demanded = append(q.demanded, c)
		}
	}
	return &q, nil
}

// Demanded returns the checks the policy demands of r (sorted; nil when it
// demands none).
func (r *TrustedRoot) Demanded() []string { return append([]string(nil), r.demanded...) }

// verifier returns a sigstore-go verifier demanding r's requirements. With
// a log entry or a timestamp required, the certificate is checked at the
// verified time(s) only: never at the current time, never online.
// untimedLog says the entity's log entries state no time (Rekor v2: a
// checkpoint and inclusion proof, no signed entry timestamp): the entry is
// still required and verified, and the time must come from an RFC 3161
// timestamp (precheck has refused it without one).
func (r *TrustedRoot) verifier(skipTimestamp, untimedLog bool) (*sgverify.Verifier, error) {
	req := r.Requirements()
	var opts []sgverify.VerifierOption
	switch {
	case req.TransparencyLog && untimedLog:
		opts = append(opts, sgverify.WithTransparencyLog(1))
	case req.TransparencyLog:
		// The entry's integrated time, proven by its signed entry
		// timestamp, is a verified signing time.
		opts = append(opts, sgverify.WithTransparencyLog(1), sgverify.WithIntegratedTimestamps(1))
	}
	if req.Timestamp && !skipTimestamp {
		opts = append(opts, sgverify.WithSignedTimestamps(1))
	}
	if req.SCT {
		opts = append(opts, sgverify.WithSignedCertificateTimestamps(1))
	}
	return sgverify.NewVerifier(r.root, opts...)
}
