package interop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
)

// TestAddonpackVerifiesCosignKeyless: what the real cosign v2.6.5 CLI signs
// and attests keyless — against the loopback Fulcio, Rekor and TSA of a
// test Sigstore, in the classic scheme and with --new-bundle-format —
// addonpack verifies offline with that Sigstore's trusted root and the
// workflow's identity, provenance included, on both registries; another
// repository's identity is refused.
func TestAddonpackVerifiesCosignKeyless(t *testing.T) {
	cosign := tool(t, "cosign")
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := testsigstore.StartServers(t, ss)
	w := testsigstore.GitHubWorkflow{Repository: "example/hello", Workflow: ".github/workflows/release.yml", Ref: "refs/tags/v0.1.0"}
	root := srv.TrustedRootFile(t)
	dir := t.TempDir()
	builder := "https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0"
	pred := filepath.Join(dir, "provenance.json")
	if err := os.WriteFile(pred, []byte(`{"buildDefinition":{"buildType":"https://example.com/build"},"runDetails":{"builder":{"id":"`+builder+`"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, reg := range registries {
		for _, bundle := range []bool{false, true} {
			name := "classic"
			if bundle {
				name = "bundle"
			}
			t.Run(reg.Name+"/"+name, func(t *testing.T) {
				host := reg.Start(t)
				src := filepath.Join(t.TempDir(), "hello")
				must(t, nil, "init", src)
				pinned := strings.TrimSpace(must(t, nil, "push", src, host+"/addons/hello:0.1.0"))
				// The root lists a TSA, so addonpack requires a timestamp:
				// cosign is given the test TSA for both.
				srv.CosignSign(t, cosign, pinned, w.Claims(), testsigstore.CosignOptions{NewBundleFormat: bundle, TSA: true})
				srv.CosignSign(t, cosign, pinned, w.Claims(), testsigstore.CosignOptions{NewBundleFormat: bundle, TSA: true, Predicate: pred, PredicateType: "slsaprovenance1"})
				r := addonpack(t, nil, "verify", pinned, "--trusted-root", root, "--github-repository", "example/hello",
					"--certificate-github-workflow-ref", "refs/tags/v0.1.0", "--require-provenance", "--builder-id", builder, "-v")
				if r.code != 0 {
					t.Fatalf("addonpack verify of cosign's keyless %s signature: %+v", name, r)
				}
				if !strings.Contains(r.out, "identity https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0") {
					t.Fatalf("verify -v does not name the identity:\n%s", r.out)
				}
				other := addonpack(t, nil, "verify", pinned, "--trusted-root", root, "--github-repository", "example/other")
				if other.code != commands.ExitVerify || !strings.Contains(other.err, "matches none of the scope's identities") {
					t.Fatalf("another repository's identity: %+v", other)
				}
			})
		}
	}
}
