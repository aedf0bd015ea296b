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
// root to world/tuf-root.json and the trusted root itself to
// world/sigstore-root.json (the one copy --carry-trusted-root carries), and
// returns the repository's host:port.
func helpTUFRepository(t *testing.T, world string) string {
	t.Helper()
	raw := testsigstore.NewTrustedRootJSON(t)
	repo := testsigstore.StartTUFRepository(t, map[string][]byte{"trusted_root.json": raw}, testsigstore.TUFOptions{})
	for name, b := range map[string][]byte{"tuf-root.json": repo.Root, "sigstore-root.json": raw} {
		if err := os.WriteFile(filepath.Join(world, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
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

	// A --tuf-root refused names the file: missing, exit 4 as a missing
	// --key; not TUF root metadata (a Sigstore trusted root), exit 3.
	for _, tc := range []struct {
		file, msg string
		code      int
	}{
		{filepath.Join(dir, "missing.json"), "missing.json", commands.ExitNotFound},
		{w.root, "--tuf-root " + w.root + ": invalid initial TUF root", commands.ExitInvalid},
	} {
		d := t.TempDir()
		r := run(t, nil, "trusted-root", "fetch", "--tuf-url", repo.URL, "--tuf-root", tc.file, "-o", filepath.Join(d, "root.json"))
		if left, _ := os.ReadDir(d); r.code != tc.code || !strings.Contains(r.err, tc.msg) || len(left) != 0 {
			t.Errorf("--tuf-root %s: %+v (left %v), want exit %d naming %q", tc.file, r, left, tc.code, tc.msg)
		}
	}
	// The public-good mirror written with a trailing slash is still the
	// one whose TUF root is built in: no --tuf-root needed, and the existing
	// output is refused (exit 8) before anything is fetched.
	if r := run(t, nil, "trusted-root", "fetch", "--tuf-url", "https://tuf-repo-cdn.sigstore.dev/", "-o", out); r.code != commands.ExitConflict || !strings.Contains(r.err, "--force") {
		t.Errorf("public-good URL with a slash: %+v", r)
	}
}

// TestTrustedRootFetchCAFile: a TUF repository behind a private CA is
// reached with --ca-file, as a registry is, and refused (exit 5, the
// certificate named) without it.
func TestTrustedRootFetchCAFile(t *testing.T) {
	raw := testsigstore.NewTrustedRootJSON(t)
	repo := testsigstore.StartTUFRepository(t, map[string][]byte{"trusted_root.json": raw}, testsigstore.TUFOptions{TLS: true})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, repo.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"trusted-root", "fetch", "--tuf-url", repo.URL, "--tuf-root", repo.RootFile(t), "-o", filepath.Join(dir, "root.json")}
	if r := run(t, nil, args...); r.code != commands.ExitUnreachable || !strings.Contains(r.err, "certificate") {
		t.Fatalf("without --ca-file: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "root.json")); !os.IsNotExist(err) {
		t.Fatalf("a refused fetch wrote its output: %v", err)
	}
	r := run(t, nil, append(args, "--ca-file", ca)...)
	sum := sha256.Sum256(raw)
	if r.code != 0 || strings.TrimSpace(r.out) != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("with --ca-file: %+v", r)
	}
}

// TestCopyCarriesTrustedRoot: copy --to-tarball --carry-trusted-root takes
// the root of a keyless-signed add-on across an air gap; --from-tarball
// --trusted-root-out writes it out, and only a policy pinning its digest
// makes it trusted: a policy pinning another digest fails (exit 3) and
// removes the file it wrote; --trusted-root with it is refused (exit 2).
func TestCopyCarriesTrustedRoot(t *testing.T) {
	host := bothRegistries[0].host(t)
	w := newKeylessWorld(t, host)
	dir := t.TempDir()
	tarball := filepath.Join(dir, "hello.tar")
	r := run(t, nil, "copy", w.ref, "--to-tarball", tarball, "--carry-trusted-root", w.root,
		"--trusted-root", w.root, "--github-repository", "example/hello", "--format", "json")
	if r.code != 0 {
		t.Fatalf("copy --to-tarball: %+v", r)
	}
	raw, _ := os.ReadFile(w.root)
	sum := sha256.Sum256(raw)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if !strings.Contains(r.out, `"trustedRoot": "`+digest+`"`) || !strings.Contains(r.err, "carried trusted root "+digest) {
		t.Fatalf("copy --to-tarball does not report the carried root %s: %+v", digest, r)
	}
	writePolicy := func(pin string) string {
		p := filepath.Join(t.TempDir(), "policy.yaml")
		body := "apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\n" +
			"trustedRoots:\n  - name: carried\n    path: carried.json\n    digest: " + pin + "\n" +
			"identities:\n  - name: release\n    issuer: " + testsigstore.GitHubActionsIssuer + "\n" +
			"    subject: https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0\n" +
			"scopes:\n  - identities: [release]\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := writePolicy(digest)
	out := filepath.Join(filepath.Dir(good), "carried.json")
	in := run(t, nil, "copy", "--from-tarball", tarball, host+"/airgap/hello", "--trusted-root-out", out, "--policy", good)
	if in.code != 0 || !strings.Contains(in.err, digest) {
		t.Fatalf("copy --from-tarball --trusted-root-out: %+v", in)
	}
	if got, _ := os.ReadFile(out); string(got) != string(raw) {
		t.Fatal("the root written differs from the one carried")
	}
	if v := run(t, nil, "verify", host+"/airgap/hello:0.1.0", "--policy", good); v.code != 0 {
		t.Fatalf("verify the copy under the carried root: %+v", v)
	}

	other := sha256.Sum256([]byte("another root"))
	bad := writePolicy("sha256:" + hex.EncodeToString(other[:]))
	badOut := filepath.Join(filepath.Dir(bad), "carried.json")
	if r := run(t, nil, "copy", "--from-tarball", tarball, host+"/airgap2/hello", "--trusted-root-out", badOut, "--policy", bad); r.code != commands.ExitInvalid || !strings.Contains(r.err, "digest") {
		t.Fatalf("a policy pinning another digest: %+v", r)
	}
	if _, err := os.Stat(badOut); !os.IsNotExist(err) {
		t.Fatalf("the root written for a failed copy is still there: %v", err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"with --trusted-root", []string{"copy", "--from-tarball", tarball, host + "/airgap3/hello", "--trusted-root-out", badOut, "--trusted-root", w.root, "--github-repository", "example/hello"}, commands.ExitUsage},
		{"without --from-tarball", []string{"copy", w.ref, host + "/airgap3/hello", "--trusted-root-out", badOut, "--policy", good}, commands.ExitUsage},
		{"carry without --to-tarball", []string{"copy", w.ref, host + "/airgap3/hello", "--carry-trusted-root", w.root, "--policy", good}, commands.ExitUsage},
		{"carry a file that is not a root", []string{"copy", w.ref, "--to-tarball", filepath.Join(filepath.Dir(badOut), "x.tar"), "--carry-trusted-root", good, "--policy", good}, commands.ExitInvalid},
		{"existing file with other bytes", []string{"copy", "--from-tarball", tarball, host + "/airgap3/hello", "--trusted-root-out", good, "--policy", good}, commands.ExitConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := run(t, nil, tc.args...); r.code != tc.code {
				t.Fatalf("got %+v, want exit %d", r, tc.code)
			}
			if _, err := os.Stat(badOut); !os.IsNotExist(err) {
				t.Fatalf("%s written: %v", badOut, err)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(badOut), "x.tar")); !os.IsNotExist(err) {
				t.Fatalf("tarball written: %v", err)
			}
		})
	}
	plain := filepath.Join(dir, "plain.tar")
	if r := run(t, nil, "copy", w.ref, "--to-tarball", plain, "--policy", good); r.code != 0 {
		t.Fatalf("copy --to-tarball without a root: %+v", r)
	}
	if r := run(t, nil, "copy", "--from-tarball", plain, host+"/airgap4/hello", "--trusted-root-out", badOut, "--policy", good); r.code != commands.ExitNotFound {
		t.Fatalf("a tarball without a root: %+v", r)
	}
}

// TestTrustedRootFetchHostileRepository: a TUF repository that rolls a
// role back, freezes, mixes in another repository's files, serves a root
// signed by the wrong keys, serves a file without end or trickles it exits
// with the documented code (9, 7, 5), naming the repository, and writes
// nothing.
func TestTrustedRootFetchHostileRepository(t *testing.T) {
	raw := testsigstore.NewTrustedRootJSON(t)
	start := func(o testsigstore.TUFOptions) *testsigstore.TUFRepository {
		return testsigstore.StartTUFRepository(t, map[string][]byte{"trusted_root.json": raw}, o)
	}
	mixed, other := start(testsigstore.TUFOptions{MetaHashes: true}), start(testsigstore.TUFOptions{MetaHashes: true})
	mixed.Serve("1.targets.json", other.File("1.targets.json"))
	endless := start(testsigstore.TUFOptions{})
	endless.ServeEndless(endless.TargetPath("trusted_root.json"), 0)
	loris := start(testsigstore.TUFOptions{})
	loris.ServeStalled("timestamp.json", 50*time.Millisecond)
	for _, tc := range []struct {
		name string
		repo *testsigstore.TUFRepository
		code int
		says string
	}{
		{"snapshot rolled back", start(testsigstore.TUFOptions{StaleSnapshot: true}), commands.ExitVerify, "2.snapshot.json"},
		{"targets rolled back", start(testsigstore.TUFOptions{StaleTargets: true}), commands.ExitVerify, "2.targets.json"},
		{"frozen on an expired snapshot", start(testsigstore.TUFOptions{SnapshotExpires: time.Now().Add(-time.Minute)}), commands.ExitVerify, "expired"},
		{"another repository's targets", mixed, commands.ExitIntegrity, "1.targets.json"},
		{"root signed by the wrong keys", start(testsigstore.TUFOptions{NextRoot: testsigstore.RootForeign}), commands.ExitVerify, "2.root.json"},
		{"target without end", endless, commands.ExitIntegrity, "trusted_root.json"},
		{"timestamp trickling", loris, commands.ExitUnreachable, "timestamp.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			r := run(t, nil, "trusted-root", "fetch", "--tuf-url", tc.repo.URL, "--tuf-root", tc.repo.RootFile(t), "--read-timeout", "1s", "-o", filepath.Join(d, "root.json"))
			if r.code != tc.code || r.out != "" || !strings.Contains(r.err, tc.repo.URL) || !strings.Contains(r.err, tc.says) {
				t.Fatalf("got %+v, want exit %d naming %s and %q", r, tc.code, tc.repo.URL, tc.says)
			}
			if left, _ := os.ReadDir(d); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}
