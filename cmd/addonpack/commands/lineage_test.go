package commands_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/testregistry"
)

// TestLockSignerLineage (issue 28): the lock records who signed each
// add-on; lock --update refuses a release signed only by another key the
// policy trusts, naming the add-on and both signers, unless
// --allow-signer-change, which records the new signer; a release signed
// by a locked signer and a new one moves; a re-lock of the same version
// changes nothing.
func TestLockSignerLineage(t *testing.T) {
	w := &stackWorld{t: t, dir: t.TempDir(), host: testregistry.New(t).Host()}
	a, b := w.keygen("a"), w.keygen("b")
	idA, idB := keyID(t, a+".pub"), keyID(t, b+".pub")
	w.publish("app", "1.0.0", a)
	policy := filepath.Join(w.dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(`apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - {name: team, path: a.pub}
  - {name: vendor, path: b.pub}
scopes:
  - {prefix: `+w.host+`/addons/app, keys: [team, vendor]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := w.stackFile("  - repository: HOST/addons/app\n    version: \">=1.0.0\"\n")
	lockPath := stack.LockPath(file)
	// With a cache: the verified-digest memo remembers passes, not signers,
	// so every lock below must still record them.
	env := map[string]string{"XDG_CACHE_HOME": filepath.Join(w.dir, "cache")}
	if r := run(t, env, "lock", file, "--policy", policy); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	locked := mustRead(t, lockPath)
	if !strings.HasPrefix(locked, "apiVersion: addonpack.dev/v1alpha2\n") || !strings.Contains(locked, "    signers:\n      - keyId: "+idA+"\n    level: 0\n") {
		t.Fatalf("lock does not record key a (%s):\n%s", idA, locked)
	}
	if r := run(t, env, "lock", file, "--policy", policy, "--allow-signer-change"); r.code != commands.ExitUsage {
		t.Fatalf("--allow-signer-change without --update: %+v", r)
	}

	w.publish("app", "1.1.0", b) // signed by the vendor only
	r := run(t, env, "lock", file, "--policy", policy, "--update")
	if want := "app 1.0.0 → 1.1.0: signed by " + idA + ", now only by " + idB + " (vendor)"; r.code != commands.ExitVerify ||
		!strings.Contains(r.err, want) || !strings.Contains(r.err, "--allow-signer-change") {
		t.Fatalf("lock --update to a release by another signer: want exit %d with %q, got %+v", commands.ExitVerify, want, r)
	}
	if got := mustRead(t, lockPath); got != locked {
		t.Fatalf("a refused update rewrote the lock:\n%s", got)
	}
	// A re-lock that keeps the version keeps working.
	if r := run(t, env, "lock", file, "--policy", policy, "--update", "--prefer", "lowest"); r.code != 0 || mustRead(t, lockPath) != locked {
		t.Fatalf("re-lock of 1.0.0: %+v", r)
	}
	if r := run(t, env, "lock", file, "--policy", policy, "--update", "--allow-signer-change"); r.code != 0 {
		t.Fatalf("--allow-signer-change: %+v", r)
	}
	if got := mustRead(t, lockPath); !strings.Contains(got, "version: 1.1.0\n") || !strings.Contains(got, "    signers:\n      - keyId: "+idB+"\n    level: 0\n") {
		t.Fatalf("accepted change recorded as:\n%s", got)
	}

	// 1.2.0 signed by both: it shares the vendor with the lock.
	ref := w.host + "/addons/app:1.2.0"
	w.publishTo(ref, "app", "1.2.0", a, nil)
	if r := run(t, signEnv, "sign", ref, "--key", b+".key"); r.code != 0 {
		t.Fatalf("sign: %+v", r)
	}
	if r := run(t, env, "lock", file, "--policy", policy, "--update"); r.code != 0 {
		t.Fatalf("lock --update to a release by both: %+v", r)
	}
	both := []string{idA, idB}
	if idB < idA {
		both = []string{idB, idA}
	}
	if got := mustRead(t, lockPath); !strings.Contains(got, "version: 1.2.0\n") || !strings.Contains(got, "    signers:\n      - keyId: "+both[0]+"\n      - keyId: "+both[1]+"\n") {
		t.Fatalf("lock after 1.2.0:\n%s", got)
	}
	if r := run(t, env, "lock", file, "--check"); r.code != 0 {
		t.Fatalf("lock --check: %+v", r)
	}
}

// TestLockSignerLineageUnverified (review items 3 and 21): a run that
// verifies nothing — --offline, where the verified-digest memo says that
// a digest passed but not who signed it, or --insecure-skip-verify — keeps
// the lock's signers when the digest stays and refuses to move an add-on
// that records signers, so it neither bypasses the lineage nor erases it:
// the next online update still holds the new release to the old signer.
func TestLockSignerLineageUnverified(t *testing.T) {
	w := &stackWorld{t: t, dir: t.TempDir(), host: testregistry.New(t).Host()}
	a, b := w.keygen("a"), w.keygen("b")
	w.publish("app", "1.0.0", a)
	policy := filepath.Join(w.dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(`apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - {name: team, path: a.pub}
  - {name: vendor, path: b.pub}
scopes:
  - {prefix: `+w.host+`/addons/app, keys: [team, vendor]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := w.stackFile("  - repository: HOST/addons/app\n    version: \">=1.0.0\"\n")
	lockPath := stack.LockPath(file)
	env := map[string]string{"HOME": t.TempDir()} // a cache and its record key, for --offline
	if r := run(t, env, "lock", file, "--policy", policy); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	locked := mustRead(t, lockPath)
	if !strings.Contains(locked, "    signers:\n") {
		t.Fatalf("lock records no signers:\n%s", locked)
	}
	pull := func(version string) {
		t.Helper()
		ref := w.host + "/addons/app:" + version
		if r := run(t, env, "pull", ref, "--policy", policy, "-o", filepath.Join(w.dir, "pulled", version)); r.code != 0 {
			t.Fatalf("pull %s: %+v", ref, r)
		}
	}
	pull("1.0.0") // caches it for --offline
	offline := []string{"lock", file, "--policy", policy, "--update", "--offline"}
	skip := []string{"lock", file, "--update", "--insecure-skip-verify"}
	for _, args := range [][]string{offline, skip} {
		if r := run(t, env, args...); r.code != 0 {
			t.Fatalf("%v, nothing to move: %+v", args[len(args)-1], r)
		}
		if got := mustRead(t, lockPath); got != locked {
			t.Fatalf("%v rewrote the lock of an unchanged digest:\n%s\nwas:\n%s", args[len(args)-1], got, locked)
		}
	}

	// 1.1.0 signed by the vendor only; a pull remembers its pass in the
	// memo (and caches it), as a consumer on this machine would.
	w.publish("app", "1.1.0", b)
	pull("1.1.0")
	want := "app 1.0.0 → 1.1.0: not verified in this run: lineage cannot be checked (signed by "
	for _, args := range [][]string{offline, skip} {
		r := run(t, env, args...)
		if r.code != commands.ExitVerify || !strings.Contains(r.err, want) || !strings.Contains(r.err, "--allow-signer-change") {
			t.Fatalf("%v to 1.1.0: want exit %d with %q, got %+v", args[len(args)-1], commands.ExitVerify, want, r)
		}
		if got := mustRead(t, lockPath); got != locked {
			t.Fatalf("a refused %v rewrote the lock:\n%s", args[len(args)-1], got)
		}
	}
	// The baseline survived: online, the vendor's release is still a change.
	r := run(t, env, "lock", file, "--policy", policy, "--update")
	if r.code != commands.ExitVerify || !strings.Contains(r.err, "app 1.0.0 → 1.1.0: signed by ") {
		t.Fatalf("online update after unverified runs: want exit %d (signer change), got %+v", commands.ExitVerify, r)
	}
}

// TestLockSignerLineageKeyless: a keyless identity is recorded as issuer
// and full subject; lock --update compares it without the workflow's git
// ref (review item 4), so the next release tag of the same workflow moves
// unattended, while another workflow of the same trusted repository, or
// the same workflow of another repository, is a change of signers.
func TestLockSignerLineageKeyless(t *testing.T) {
	host := testregistry.New(t).Host()
	dir := t.TempDir()
	ss, err := testsigstore.New()
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
	tagged := testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/tags/v0.1.0"}.Identity()
	next := testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/tags/v0.1.1"}.Identity()
	nightly := testsigstore.GitHubWorkflow{Repository: "example/hello", Workflow: ".github/workflows/nightly.yml", Ref: "refs/tags/v0.1.2"}.Identity()
	fork := testsigstore.GitHubWorkflow{Repository: "example/fork", Workflow: ".github/workflows/nightly.yml", Ref: "refs/tags/v0.1.3"}.Identity()
	publish := func(version string, id testsigstore.Identity) {
		t.Helper()
		src := filepath.Join(dir, "src-"+version, "hello")
		if r := run(t, nil, "init", src); r.code != 0 {
			t.Fatalf("init: %+v", r)
		}
		y := filepath.Join(src, "addon.yaml")
		b, _ := os.ReadFile(y)
		if err := os.WriteFile(y, []byte(strings.Replace(string(b), "version: 0.1.0", "version: "+version, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		p := run(t, nil, "push", src, host+"/addons/hello:"+version)
		if p.code != 0 {
			t.Fatalf("push: %+v", p)
		}
		pinned := strings.TrimSpace(p.out)
		repo, digest, _ := strings.Cut(pinned, "@")
		stmt, _ := testsigstore.Statement(repo, digest, testsigstore.CosignSignPredicate, nil)
		bundle, err := ss.DSSEBundle(id, stmt, testsigstore.SignOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := testsigstore.WriteBundle(context.Background(), pinned, bundle, testsigstore.CosignSignPredicate); err != nil {
			t.Fatal(err)
		}
	}
	publish("0.1.0", tagged)
	file := filepath.Join(dir, "stack", "addons.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: "+host+"/addons/hello\n    version: \">=0.1.0, <1.0.0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trust := []string{"--trusted-root", root, "--github-repository", "example/hello"}
	if r := run(t, nil, append([]string{"lock", file}, trust...)...); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	recorded := "    signers:\n      - issuer: " + testsigstore.GitHubActionsIssuer + "\n        subject: " + tagged.URI + "\n"
	if got := mustRead(t, stack.LockPath(file)); !strings.Contains(got, recorded) {
		t.Fatalf("lock does not record the identity:\n%s\nwant:\n%s", got, recorded)
	}
	publish("0.1.1", next) // the same workflow, the next release tag
	if r := run(t, nil, append([]string{"lock", file, "--update"}, trust...)...); r.code != 0 {
		t.Fatalf("lock --update to the next tag of the same workflow: %+v", r)
	}
	if got := mustRead(t, stack.LockPath(file)); !strings.Contains(got, "version: 0.1.1\n") || !strings.Contains(got, "subject: "+next.URI+"\n") {
		t.Fatalf("lock after 0.1.1 does not record the full subject %s:\n%s", next.URI, got)
	}
	publish("0.1.2", nightly) // another workflow of the same repository
	r := run(t, nil, append([]string{"lock", file, "--update"}, trust...)...)
	if want := "hello 0.1.1 → 0.1.2: signed by " + next.URI + " (issuer " + testsigstore.GitHubActionsIssuer + "), now only by " + nightly.URI; r.code != commands.ExitVerify || !strings.Contains(r.err, want) {
		t.Fatalf("want exit %d with %q, got %+v", commands.ExitVerify, want, r)
	}
	if r := run(t, nil, append([]string{"lock", file, "--update", "--allow-signer-change"}, trust...)...); r.code != 0 {
		t.Fatalf("--allow-signer-change: %+v", r)
	}
	if got := mustRead(t, stack.LockPath(file)); !strings.Contains(got, "subject: "+nightly.URI+"\n") || strings.Contains(got, next.URI) {
		t.Fatalf("accepted change recorded as:\n%s", got)
	}
	// The same workflow file in another repository, under a policy that
	// trusts both repositories.
	publish("0.1.3", fork)
	wide := []string{"--trusted-root", root, "--certificate-oidc-issuer", testsigstore.GitHubActionsIssuer, "--certificate-identity-regexp", `^https://github\.com/example/`}
	r = run(t, nil, append([]string{"lock", file, "--update"}, wide...)...)
	if want := "hello 0.1.2 → 0.1.3: signed by " + nightly.URI + " (issuer " + testsigstore.GitHubActionsIssuer + "), now only by " + fork.URI; r.code != commands.ExitVerify || !strings.Contains(r.err, want) {
		t.Fatalf("want exit %d with %q, got %+v", commands.ExitVerify, want, r)
	}
}

func keyID(t *testing.T, pub string) string {
	t.Helper()
	v, err := keys.LoadVerifier(context.Background(), pub, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.ID
}
