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

// maxTrustedRootSize bounds a trusted_root.json read (the public-good root
// is about 10 KiB).
const maxTrustedRootSize = 1 << 20

// TrustedRoot is a Sigstore trusted root (trusted_root.json) the policy
// pins by digest: certificate authorities, Rekor logs, CT logs and
// timestamping authorities. Keyless signatures are verified against it and
// nothing else, offline.
type TrustedRoot struct {
	Name   string
	Digest string // "sha256:<hex>" of the file's bytes
	root   *root.TrustedRoot
}

// Requirements are the checks a root makes mandatory (specs/policy.md,
// "What a keyless signature must prove"): derived from its content, never
// weakened by a policy.
type Requirements struct {
	TransparencyLog bool `json:"transparencyLog"` // the root has Rekor logs
	Timestamp       bool `json:"timestamp"`       // the root has timestamping authorities
	SCT             bool `json:"sct"`             // the root has CT logs
}

// LoadTrustedRoot reads a trusted_root.json. When want is not empty the
// file's SHA-256 must equal it (ErrRootDigest otherwise): the file has no
// integrity of its own.
func LoadTrustedRoot(name, path, want string) (*TrustedRoot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trusted root %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxTrustedRootSize+1))
	if err != nil { // e.g. a directory: invalid as the bytes it yielded would be
		return nil, fmt.Errorf("trusted root %s: %w: %w", path, ErrPolicy, err)
	}
	if len(raw) > maxTrustedRootSize {
		return nil, fmt.Errorf("trusted root %s: %w: larger than %d bytes", path, ErrPolicy, maxTrustedRootSize)
	}
	return ParseTrustedRoot(name, raw, path, want)
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
	r := &TrustedRoot{Name: name, Digest: got, root: tr}
	if len(tr.FulcioCertificateAuthorities()) == 0 {
		return nil, fmt.Errorf("trusted root %q (%s): %w: no certificate authorities", name, where, ErrPolicy)
	}
	if req := r.Requirements(); !req.TransparencyLog && !req.Timestamp {
		return nil, fmt.Errorf("trusted root %q (%s): %w: neither Rekor logs nor timestamping authorities, so no signing time can be verified", name, where, ErrPolicy)
	}
	return r, nil
}

// Requirements returns the checks r makes mandatory.
func (r *TrustedRoot) Requirements() Requirements {
	return Requirements{
		TransparencyLog: len(r.root.RekorLogs()) > 0,
		Timestamp:       len(r.root.TimestampingAuthorities()) > 0,
		SCT:             len(r.root.CTLogs()) > 0,
	}
}

// verifier returns a sigstore-go verifier demanding r's requirements. With
// a log entry or a timestamp required, the certificate is checked at the
// verified time(s) only: never at the current time, never online.
func (r *TrustedRoot) verifier(skipTimestamp bool) (*sgverify.Verifier, error) {
	req := r.Requirements()
	var opts []sgverify.VerifierOption
	if req.TransparencyLog {
		// The entry's integrated time, proven by its SET or inclusion
		// proof, is a verified signing time.
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
