package testsigstore

import (
	"bytes"
	"context"
	"crypto/x509"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// CosignOptions choose what CosignSign has the cosign CLI make.
type CosignOptions struct {
	// NewBundleFormat stores a Sigstore bundle referrer (cosign
	// --new-bundle-format) instead of a layer of the "sha256-<hex>.sig" or
	// ".att" image with the certificate and Rekor bundle as annotations.
	NewBundleFormat bool
	// Predicate, when set, is a predicate file that `cosign attest --type
	// PredicateType` attaches instead of signing.
	Predicate, PredicateType string
	// TSA adds an RFC 3161 timestamp from the test TSA.
	TSA bool
}

// CosignSign has the real cosign CLI at bin sign (or attest) ref, a
// loopback plain-HTTP registry reference by digest, keyless as the identity
// of claims, against these servers: cosign's own Fulcio (v1 API), SCT,
// Rekor and TSA code does the work, with the test CA, CT log and Rekor keys
// as its trust (SIGSTORE_ROOT_FILE, SIGSTORE_CT_LOG_PUBLIC_KEY_FILE,
// SIGSTORE_REKOR_PUBLIC_KEY; no TUF). What it stores verifies against the
// Sigstore's trusted root: the other direction of the interop tests.
func (s *Servers) CosignSign(t testing.TB, bin, ref string, claims Claims, o CosignOptions) {
	t.Helper()
	dir := t.TempDir()
	tok, err := s.Issuer.Token(claims)
	if err != nil {
		t.Fatal(err)
	}
	// cosign takes a long argument for a path: the token goes in a file.
	tokFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokFile, []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"sign"}
	if o.Predicate != "" {
		args = []string{"attest", "--predicate", o.Predicate, "--type", o.PredicateType}
	}
	args = append(args, "--yes", "--fulcio-url", s.Fulcio.URL, "--rekor-url", s.Rekor.URL, "--identity-token", tokFile,
		"--allow-insecure-registry", "--allow-http-registry")
	if o.NewBundleFormat {
		args = append(args, "--new-bundle-format")
	}
	if o.TSA {
		args = append(args, "--timestamp-server-url", s.TSA.URL)
	}
	args = append(args, ref)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append([]string{
		"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(),
		"DOCKER_CONFIG=" + filepath.Join(dir, "docker"), "TUF_ROOT=" + filepath.Join(dir, "tuf"), "SIGSTORE_NO_CACHE=true",
	}, s.CosignTrustEnv(t)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("cosign %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
}

// CosignTrustEnv is the environment that makes the cosign CLI trust the
// test Sigstore where it takes no trusted root (signing, and verifying the
// classic scheme): SIGSTORE_ROOT_FILE (the CA chain),
// SIGSTORE_CT_LOG_PUBLIC_KEY_FILE and SIGSTORE_REKOR_PUBLIC_KEY, in files
// of a temporary directory.
func (s *Servers) CosignTrustEnv(t testing.TB) []string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, b []byte, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	chain, err := cryptoutils.MarshalCertificatesToPEM([]*x509.Certificate{s.ss.Root, s.ss.Intermediate})
	roots := write("fulcio.pem", chain, err)
	ctPub, err := cryptoutils.MarshalPublicKeyToPEM(s.ss.CTLogPublicKey())
	ct := write("ctlog.pub", ctPub, err)
	rekorPub, err := cryptoutils.MarshalPublicKeyToPEM(s.ss.RekorPublicKey())
	rekor := write("rekor.pub", rekorPub, err)
	return []string{"SIGSTORE_ROOT_FILE=" + roots, "SIGSTORE_CT_LOG_PUBLIC_KEY_FILE=" + ct, "SIGSTORE_REKOR_PUBLIC_KEY=" + rekor}
}
