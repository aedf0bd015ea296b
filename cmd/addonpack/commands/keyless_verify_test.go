package commands_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
)

// keylessWorld is a pushed, keylessly signed add-on and the trusted root of
// the private Sigstore that signed it.
type keylessWorld struct {
	ref, pinned, root, dir string
}

// newKeylessWorld pushes examples-like hello to host and signs it as
// release's workflow: a bundle signature, a classic signature, and a
// classic SLSA provenance attestation naming the workflow as builder.
func newKeylessWorld(t *testing.T, host string, opts ...testsigstore.Option) keylessWorld {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	ref := host + "/addons/hello:0.1.0"
	p := run(t, nil, "push", src, ref)
	if p.code != 0 {
		t.Fatalf("push: %+v", p)
	}
	pinned := strings.TrimSpace(p.out)
	repo, digest, _ := strings.Cut(pinned, "@")
	ss, err := testsigstore.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ss.TrustedRootJSON(testsigstore.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "trusted_root.json")
	if err := os.WriteFile(root, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	id := testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/tags/v0.1.0"}.Identity()
	ctx := context.Background()
	stmt, _ := testsigstore.Statement(repo, digest, testsigstore.CosignSignPredicate, nil)
	b, err := ss.DSSEBundle(id, stmt, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := testsigstore.WriteBundle(ctx, pinned, b, testsigstore.CosignSignPredicate); err != nil {
		t.Fatal(err)
	}
	sig, err := ss.ClassicSignature(id, repo, digest, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prov, _ := testsigstore.Statement(repo, digest, testsigstore.SLSAProvenanceV1, map[string]any{
		"buildDefinition": map[string]any{"buildType": "https://addonpack.dev/build/v1"},
		"runDetails":      map[string]any{"builder": map[string]any{"id": id.Extensions.BuildSignerURI}},
	})
	att, err := ss.ClassicAttestation(id, prov, testsigstore.SLSAProvenanceV1, testsigstore.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := testsigstore.WriteClassic(ctx, pinned, sig, att); err != nil {
		t.Fatal(err)
	}
	return keylessWorld{ref: ref, pinned: pinned, root: root, dir: dir}
}

// TestKeylessVerifyFlags: verify and pull accept keyless signatures under
// --trusted-root with cosign's identity flags or --github-repository, on
// both registries, and print the identities in -o json.
func TestKeylessVerifyFlags(t *testing.T) {
	for _, reg := range bothRegistries {
		t.Run(reg.name, func(t *testing.T) {
			w := newKeylessWorld(t, reg.host(t))
			v := run(t, nil, "verify", w.ref, "--trusted-root", w.root, "--github-repository", "example/hello",
				"--require-provenance", "--builder-id", "https://github.com/example/hello/.github/workflows/release.yml@refs/tags/*", "--format", "json")
			if v.code != 0 {
				t.Fatalf("verify: %+v", v)
			}
			var list []struct {
				Result struct {
					Verified   bool
					SignedBy   []string
					Signatures []struct {
						Format   string
						Identity struct {
							Issuer, Subject string
							Extensions      map[string]string
						}
					}
				}
			}
			if err := json.Unmarshal([]byte(v.out), &list); err != nil || len(list) != 1 {
				t.Fatalf("verify -o json: %v %s", err, v.out)
			}
			res := list[0].Result
			if !res.Verified || len(res.SignedBy) != 1 || len(res.Signatures) != 2 {
				t.Fatalf("verify -o json: %s", v.out)
			}
			for _, s := range res.Signatures {
				if s.Identity.Issuer != testsigstore.GitHubActionsIssuer || s.Identity.Extensions["sourceRepositoryURI"] != "https://github.com/example/hello" {
					t.Fatalf("identity: %+v", s)
				}
			}
			exact := []string{"--trusted-root", w.root,
				"--certificate-identity", "https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0",
				"--certificate-oidc-issuer", testsigstore.GitHubActionsIssuer,
				"--certificate-github-workflow-repository", "example/hello", "--certificate-github-workflow-ref", "refs/tags/v0.1.0",
				"--certificate-github-workflow-trigger", "push", "--certificate-github-workflow-name", "Release",
				"--certificate-github-workflow-sha", strings.Repeat("a", 40)}
			if r := run(t, nil, append([]string{"verify", w.ref}, exact...)...); r.code != 0 {
				t.Fatalf("verify with cosign's flags: %+v", r)
			}
			out := filepath.Join(w.dir, "pulled")
			if r := run(t, nil, append([]string{"pull", w.ref, "-o", out}, exact...)...); r.code != 0 {
				t.Fatalf("pull: %+v", r)
			}
			if _, err := os.Stat(filepath.Join(out, "addon.yaml")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestKeylessVerifyRefusals: another repository's identity, another ref
// claim, and flags without a root fail with their exit codes and say why.
func TestKeylessVerifyRefusals(t *testing.T) {
	w := newKeylessWorld(t, bothRegistries[0].host(t))
	for name, c := range map[string]struct {
		args []string
		code int
		says string
	}{
		"other repository": {[]string{"--trusted-root", w.root, "--github-repository", "example/other"}, commands.ExitVerify, "matches none of the scope's identities"},
		"other ref claim": {[]string{"--trusted-root", w.root, "--github-repository", "example/hello",
			"--certificate-github-workflow-ref", "refs/heads/main"}, commands.ExitVerify, "refs/heads/main"},
		"no root":            {[]string{"--github-repository", "example/hello"}, commands.ExitUsage, "needs --trusted-root"},
		"root, no identity":  {[]string{"--trusted-root", w.root}, commands.ExitUsage, "--certificate-identity"},
		"bad repository":     {[]string{"--trusted-root", w.root, "--github-repository", "example"}, commands.ExitUsage, "OWNER/REPO"},
		"root is not a root": {[]string{"--trusted-root", filepath.Join(w.dir, "hello", "addon.yaml"), "--github-repository", "example/hello"}, commands.ExitInvalid, "trusted root"},
		"with a policy":      {[]string{"--trusted-root", w.root, "--github-repository", "example/hello", "--policy", w.root}, commands.ExitUsage, "not both"},
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, nil, append([]string{"verify", w.ref}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.err, c.says) {
				t.Fatalf("want exit %d saying %q, got %+v", c.code, c.says, r)
			}
		})
	}
}

// TestInspectSignatures: inspect --signatures lists every signature and
// attestation with its certificate identity, in the form a policy takes,
// unverified; the text form shows the same.
func TestInspectSignatures(t *testing.T) {
	w := newKeylessWorld(t, bothRegistries[0].host(t))
	r := run(t, nil, "inspect", w.ref, "--signatures", "--format", "json")
	if r.code != 0 {
		t.Fatalf("inspect: %+v", r)
	}
	var out struct {
		Signatures []struct {
			Kind, Format, Verdict string
			Identity              struct {
				Issuer, Subject string
				Extensions      map[string]string
			}
		}
	}
	if err := json.Unmarshal([]byte(r.out), &out); err != nil || len(out.Signatures) != 3 {
		t.Fatalf("inspect -o json: %v %s", err, r.out)
	}
	kinds := map[string]int{}
	for _, s := range out.Signatures {
		kinds[s.Kind+"/"+s.Format]++
		if s.Verdict != "unverified" || s.Identity.Issuer != testsigstore.GitHubActionsIssuer ||
			s.Identity.Subject != "https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0" ||
			s.Identity.Extensions["githubWorkflowRepository"] != "example/hello" || s.Identity.Extensions["issuer"] != "" {
			t.Fatalf("signature: %+v", s)
		}
	}
	if kinds["signature/bundle"] != 1 || kinds["signature/classic"] != 1 || kinds["attestation/classic"] != 1 {
		t.Fatalf("kinds: %v", kinds)
	}
	text := run(t, nil, "inspect", w.ref, "--signatures")
	if text.code != 0 || !strings.Contains(text.out, "3 found (not verified") || !strings.Contains(text.out, "subject: https://github.com/example/hello/") {
		t.Fatalf("inspect text: %+v", text)
	}
	if l := run(t, nil, "inspect", filepath.Join(w.dir, "hello"), "--signatures"); l.code == 0 {
		t.Fatalf("inspect --signatures of a directory: %+v", l)
	}
}

// sigstoreMaterial is a test Sigstore's public material as the files the
// trusted-root create example names.
func sigstoreMaterial(t *testing.T) map[string]string {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	m, err := ss.MaterialPEM()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"fulcio-chain.pem": string(m.FulcioChain), "rekor.pub": string(m.RekorKey),
		"ctlog.pub": string(m.CTLogKey), "tsa-chain.pem": string(m.TSAChain)}
}

// TestTrustedRootCreate: a root assembled from a private Sigstore's PEM
// material verifies its keyless signatures; its printed digest is the
// file's; without the TSA chain it no longer requires timestamps; an
// existing file is not replaced without --force.
func TestTrustedRootCreate(t *testing.T) {
	host := bothRegistries[0].host(t)
	dir := t.TempDir()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ss.MaterialPEM()
	for name, b := range map[string][]byte{"chain.pem": m.FulcioChain, "rekor.pub": m.RekorKey, "ct.pub": m.CTLogKey, "tsa.pem": m.TSAChain} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "root.json")
	args := []string{"trusted-root", "create", "--fulcio-chain", filepath.Join(dir, "chain.pem"), "--rekor-key", filepath.Join(dir, "rekor.pub"),
		"--ctlog-key", filepath.Join(dir, "ct.pub"), "--tsa-chain", filepath.Join(dir, "tsa.pem"), "-o", out}
	r := run(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	raw, _ := os.ReadFile(out)
	sum := sha256.Sum256(raw)
	if strings.TrimSpace(r.out) != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("printed %q, the file's digest is %x", r.out, sum)
	}
	if again := run(t, nil, args...); again.code != commands.ExitConflict {
		t.Fatalf("create over an existing file: %+v", again)
	}
	// ss signs hello; the created root verifies it, and requires a timestamp.
	repo, digest, _ := strings.Cut(newKeylessPush(t, host), "@")
	id := testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/tags/v0.1.0"}.Identity()
	stmt, _ := testsigstore.Statement(repo, digest, testsigstore.CosignSignPredicate, nil)
	b, err := ss.DSSEBundle(id, stmt, testsigstore.SignOptions{NoTimestamp: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := testsigstore.WriteBundle(context.Background(), repo+"@"+digest, b, testsigstore.CosignSignPredicate); err != nil {
		t.Fatal(err)
	}
	if v := run(t, nil, "verify", repo+"@"+digest, "--trusted-root", out, "--github-repository", "example/hello"); v.code != commands.ExitVerify || !strings.Contains(v.err, "no RFC 3161 timestamp") {
		t.Fatalf("verify without a timestamp under a root with a TSA: %+v", v)
	}
	noTSA := filepath.Join(dir, "no-tsa.json")
	if r := run(t, nil, append(args[:len(args)-4], "-o", noTSA)...); r.code != 0 {
		t.Fatalf("create without TSA: %+v", r)
	}
	if v := run(t, nil, "verify", repo+"@"+digest, "--trusted-root", noTSA, "--github-repository", "example/hello"); v.code != 0 {
		t.Fatalf("verify under a root without a TSA: %+v", v)
	}
	if r := run(t, nil, "trusted-root", "create", "--rekor-key", filepath.Join(dir, "rekor.pub"), "-o", filepath.Join(dir, "x.json")); r.code != commands.ExitUsage {
		t.Fatalf("create without a chain: %+v", r)
	}
}

// newKeylessPush pushes an unsigned hello 0.1.0 to host and returns
// REPO@DIGEST.
func newKeylessPush(t *testing.T, host string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	p := run(t, nil, "push", src, host+"/other/hello:0.1.0")
	if p.code != 0 {
		t.Fatalf("push: %+v", p)
	}
	return strings.TrimSpace(p.out)
}
