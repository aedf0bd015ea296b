package verify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

func vector(kind, name string) string {
	return filepath.Join("..", "..", "specs", "testdata", "policy", kind, name)
}

// TestKeylessPolicyRefusesRootDigestMismatch: a trusted root whose bytes
// are not the ones the policy pins fails the policy, naming both digests.
func TestKeylessPolicyRefusesRootDigestMismatch(t *testing.T) {
	_, err := verify.LoadPolicy(context.Background(), vector("invalid", "root-digest-mismatch.yaml"), nil)
	if !errors.Is(err, verify.ErrRootDigest) || !errors.Is(err, verify.ErrPolicy) {
		t.Fatalf("want ErrRootDigest, got %v", err)
	}
	for _, says := range []string{"the file's digest is sha256:d8e1b1a5", "the policy pins sha256:0000"} {
		if !strings.Contains(err.Error(), says) {
			t.Errorf("message does not say %q: %v", says, err)
		}
	}
}

// TestKeylessPolicyMessages: each invalid keyless vector fails for its own
// reason.
func TestKeylessPolicyMessages(t *testing.T) {
	for file, says := range map[string]string{
		"root-unpinned.yaml":               "digest",
		"identity-subject-and-regexp.yaml": "subject",
		"identity-no-issuer.yaml":          "issuer",
		"identity-unknown-extension.yaml":  "githubWorkflowRepo",
		"identity-bad-regexp.yaml":         "subjectRegexp",
		"identity-undefined-root.yaml":     `no trusted root "other"`,
		"undefined-identity.yaml":          `undefined identity "b"`,
		"threshold-over-signers.yaml":      "exceeds its 1 distinct signers",
		"scope-without-signers.yaml":       "identities",
	} {
		t.Run(file, func(t *testing.T) {
			_, err := verify.LoadPolicy(context.Background(), vector("invalid", file), nil)
			if !errors.Is(err, verify.ErrPolicy) || !strings.Contains(err.Error(), says) {
				t.Fatalf("want ErrPolicy saying %q, got %v", says, err)
			}
		})
	}
}

// TestKeylessPolicyDigest: the digest covers identities and the pinned
// root, so the verified-digest cache never confuses two roots.
func TestKeylessPolicyDigest(t *testing.T) {
	p, err := verify.LoadPolicy(context.Background(), vector("valid", "keyless.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := p.ScopeFor(mustRef(t, "registry.example.com/addons/critical/dns:1"))
	if len(s.Identities) != 2 || s.Threshold != 2 || s.Identities[0].Root.Digest != "sha256:d8e1b1a54b6c492b3c89eb3e2dd6962e5cfc9793286bb12bccc67418d4290f7e" {
		t.Fatalf("scope: %+v", s)
	}
	if s.Identities[0].Extensions.GithubWorkflowRepository != "example/addons" || s.Identities[0].Extensions.GithubWorkflowTrigger != "push" {
		t.Fatalf("extensions: %+v", s.Identities[0].Extensions)
	}
	// The same policy under another root: another digest.
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := ss.TrustedRootJSON(testsigstore.RootOptions{})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "root.json"), raw)
	other, err := verify.LoadTrustedRoot("test-sigstore", filepath.Join(dir, "root.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	policy, _ := os.ReadFile(vector("valid", "keyless.yaml"))
	text := strings.Replace(string(policy), "../roots/test-root.json", "root.json", 1)
	text = strings.Replace(text, "sha256:d8e1b1a54b6c492b3c89eb3e2dd6962e5cfc9793286bb12bccc67418d4290f7e", other.Digest, 1)
	writeFile(t, filepath.Join(dir, "p.yaml"), []byte(text))
	q, err := verify.LoadPolicy(context.Background(), filepath.Join(dir, "p.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Digest() == p.Digest() {
		t.Fatal("two roots, one policy digest")
	}
	// The identities' rules are covered too.
	text = strings.Replace(text, "githubWorkflowTrigger: push", "githubWorkflowTrigger: release", 1)
	writeFile(t, filepath.Join(dir, "p.yaml"), []byte(text))
	if r, err := verify.LoadPolicy(context.Background(), filepath.Join(dir, "p.yaml"), nil); err != nil || r.Digest() == q.Digest() {
		t.Fatalf("extension change kept the digest (%v)", err)
	}
}

// FuzzParseTrustedRoot: any bytes are a trusted root or an error, never a
// panic; seeded with the test root and its parts.
func FuzzParseTrustedRoot(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "specs", "testdata", "policy", "roots", "test-root.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add(raw[:len(raw)/2])
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := verify.ParseTrustedRoot("fuzz", b, "fuzz.json", "")
		if err == nil && (r.Digest == "" || !(r.Requirements().TransparencyLog || r.Requirements().Timestamp)) {
			t.Fatalf("accepted root without digest or time source: %+v", r)
		}
	})
}

func mustRef(t *testing.T, s string) registry.Reference {
	t.Helper()
	r, err := registry.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLoadTrustedRootRefusesUnreadable: a file over the size bound, or a
// directory, is an invalid policy naming the path.
func TestLoadTrustedRootRefusesUnreadable(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	writeFile(t, big, make([]byte, 1<<20+1))
	for path, says := range map[string]string{big: "larger than 1048576 bytes", dir: "is a directory"} {
		_, err := verify.LoadTrustedRoot("r", path, "")
		if !errors.Is(err, verify.ErrPolicy) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), says) {
			t.Fatalf("%s: want an invalid policy naming it and saying %q, got %v", path, says, err)
		}
	}
}
