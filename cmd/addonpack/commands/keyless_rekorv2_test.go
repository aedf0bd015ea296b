package commands_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/testregistry"
)

// TestKeylessSigningConfigRekorV2: trusted-root fetch --signing-config-out
// fetches both files through TUF; push --keyless --signing-config, with
// that config listing a Rekor v1 and a Rekor v2 log, logs the signature and the
// provenance to the Rekor v2 log (no URL flag given) with a TSA timestamp,
// and verify accepts them under the root listing that log; an explicit
// --rekor-url still wins (the v1 log); a signing config whose Rekor v2 log
// has no TSA beside it is refused before anything is pushed (exit 2).
func TestKeylessSigningConfigRekorV2(t *testing.T) {
	k := newKeylessCLI(t)
	host := testregistry.New(t).Host()
	src := filepath.Join(t.TempDir(), "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	// The trusted root and the signing config, fetched through TUF in one run.
	repo := testsigstore.StartTUFRepository(t, map[string][]byte{
		"trusted_root.json": []byte(readFile(t, k.root)), "signing_config.v0.2.json": []byte(readFile(t, k.srv.SigningConfigRekorV2File(t))),
	}, testsigstore.TUFOptions{})
	dir := t.TempDir()
	root, sc := filepath.Join(dir, "trusted_root.json"), filepath.Join(dir, "signing_config.json")
	if r := run(t, nil, "trusted-root", "fetch", "--tuf-url", repo.URL, "--tuf-root", repo.RootFile(t), "-o", root, "--signing-config-out", sc); r.code != 0 {
		t.Fatalf("trusted-root fetch --signing-config-out: %+v", r)
	}
	id := k.workflow.Identity()
	verify := func(ref string) result {
		return run(t, nil, "verify", ref, "--require-provenance", "--trusted-root", root,
			"--certificate-identity", id.URI, "--certificate-oidc-issuer", testsigstore.GitHubActionsIssuer)
	}

	p := run(t, nil, "push", src, host+"/addons/hello:0.1.0", "--identity-token", "@"+k.tokenFile, "--signing-config", sc, "--trusted-root", root)
	if p.code != 0 {
		t.Fatalf("push --signing-config: %+v", p)
	}
	if v1, v2 := len(k.srv.Rekor.Entries()), len(k.srv.RekorV2.Entries()); v1 != 0 || v2 != 2 {
		t.Fatalf("Rekor v1 holds %d entries, Rekor v2 %d: want 0 and 2", v1, v2)
	}
	if v := verify(strings.TrimSpace(p.out)); v.code != 0 {
		t.Fatalf("verify: %+v", v)
	}

	p = run(t, nil, "push", src, host+"/addons/explicit/hello:0.1.0", "--identity-token", "@"+k.tokenFile, "--signing-config", sc, "--rekor-url", k.srv.Rekor.URL)
	if p.code != 0 {
		t.Fatalf("push --signing-config --rekor-url: %+v", p)
	}
	if v1, v2 := len(k.srv.Rekor.Entries()), len(k.srv.RekorV2.Entries()); v1 != 2 || v2 != 2 {
		t.Fatalf("with --rekor-url, Rekor v1 holds %d entries, Rekor v2 %d: want 2 and 2", v1, v2)
	}

	var cfg map[string]any
	if err := json.Unmarshal([]byte(readFile(t, sc)), &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["tsaUrls"] = []any{}
	noTSA, _ := json.Marshal(cfg)
	bad := filepath.Join(t.TempDir(), "signing_config.json")
	if err := os.WriteFile(bad, noTSA, 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, nil, "push", src, host+"/addons/notsa/hello:0.1.0", "--identity-token", "@"+k.tokenFile, "--signing-config", bad)
	if r.code != 2 || !strings.Contains(r.err, "needs an RFC 3161 timestamp authority") {
		t.Fatalf("Rekor v2 without a TSA: %+v", r)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
