package commands_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
)

// helpTUFRepository serves a test Sigstore's trusted_root.json through a
// TUF repository on loopback for the --help examples, writes its initial
// root to world/tuf-root.json and returns its host:port.
func helpTUFRepository(t *testing.T, world string) string {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ss.TrustedRootJSON(testsigstore.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	repo := testsigstore.StartTUFRepository(t, map[string][]byte{"trusted_root.json": raw}, testsigstore.TUFOptions{})
	if err := os.WriteFile(filepath.Join(world, "tuf-root.json"), repo.Root, 0o644); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(repo.URL, "http://")
}

// TestTrustedRootFetch: the root fetched through TUF is written as served,
// the digest printed is the file's, and a policy pinning that digest
// verifies the keyless signatures of the Sigstore the root belongs to.
// Refusals exit with their class's code and write nothing.
func TestTrustedRootFetch(t *testing.T) {
	w := newKeylessWorld(t, bothRegistries[0].host(t))
	served, err := os.ReadFile(w.root)
	if err != nil {
		t.Fatal(err)
	}
	repo := testsigstore.StartTUFRepository(t, map[string][]byte{"trusted_root.json": served}, testsigstore.TUFOptions{})
	tufRoot := repo.RootFile(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "fetched.json")
	fetch := func(out string, extra ...string) result {
		return run(t, nil, append([]string{"trusted-root", "fetch", "--tuf-url", repo.URL, "--tuf-root", tufRoot, "-o", out}, extra...)...)
	}
	r := fetch(out)
	if r.code != 0 {
		t.Fatalf("fetch: %+v", r)
	}
	raw, _ := os.ReadFile(out)
	sum := sha256.Sum256(raw)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if strings.TrimSpace(r.out) != digest || string(raw) != string(served) {
		t.Fatalf("printed %q, the file's digest is %s (%d bytes, %d served)", r.out, digest, len(raw), len(served))
	}
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\n"+
		"trustedRoots:\n  - name: fetched\n    path: fetched.json\n    digest: "+digest+"\n"+
		"identities:\n  - name: release\n    issuer: "+testsigstore.GitHubActionsIssuer+"\n"+
		"    subject: https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0\n"+
		"scopes:\n  - identities: [release]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := run(t, nil, "verify", w.ref, "--policy", policy); v.code != 0 {
		t.Fatalf("verify under the fetched root: %+v", v)
	}
	if again := fetch(out); again.code != commands.ExitConflict || !strings.Contains(again.err, "--force") {
		t.Fatalf("fetch over an existing file: %+v", again)
	}
	if again := fetch(out, "--force"); again.code != 0 || again.out != r.out {
		t.Fatalf("fetch --force: %+v", again)
	}

	expired := testsigstore.StartTUFRepository(t, map[string][]byte{"trusted_root.json": served},
		testsigstore.TUFOptions{TimestampExpires: time.Now().Add(-time.Minute)})
	tampered := testsigstore.StartTUFRepository(t, map[string][]byte{"trusted_root.json": served}, testsigstore.TUFOptions{})
	tampered.ReplaceTarget("trusted_root.json", []byte(strings.Replace(string(served), "a", "b", 1)))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // accepts, then hangs up: unreachable
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"expired timestamp", []string{"--tuf-url", expired.URL, "--tuf-root", expired.RootFile(t)}, commands.ExitVerify, "expired"},
		{"tampered target", []string{"--tuf-url", tampered.URL, "--tuf-root", tampered.RootFile(t)}, commands.ExitIntegrity, "trusted_root.json"},
		{"unreachable", []string{"--tuf-url", "http://" + l.Addr().String(), "--tuf-root", tufRoot, "--read-timeout", "2s"}, commands.ExitUnreachable, l.Addr().String()},
		{"another repository's root", []string{"--tuf-url", repo.URL, "--tuf-root", expired.RootFile(t)}, commands.ExitVerify, repo.URL},
		{"URL without its root", []string{"--tuf-url", repo.URL}, commands.ExitUsage, "--tuf-root"},
		{"no output", []string{"--tuf-url", repo.URL, "--tuf-root", tufRoot}, commands.ExitUsage, "-o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			args := append([]string{"trusted-root", "fetch"}, tc.args...)
			if tc.name != "no output" {
				args = append(args, "-o", filepath.Join(d, "root.json"))
			}
			start := time.Now()
			r := run(t, nil, args...)
			if r.code != tc.code || !strings.Contains(r.err, tc.msg) {
				t.Fatalf("got %+v, want exit %d naming %q", r, tc.code, tc.msg)
			}
			if time.Since(start) > 20*time.Second {
				t.Fatalf("took %s", time.Since(start))
			}
			if left, _ := os.ReadDir(d); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}
