package commands_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
)

// TestCopyStackCarriesTrustedRoot: a keyless-signed stack crosses an air
// gap with its trusted root — copy --stack --to-tarball
// --carry-trusted-root stores it, --from-tarball --trusted-root-out writes
// it where the far side's policy pins it, and render --stack there verifies
// against it alone (no Sigstore service runs: the test Sigstore is keys in
// memory). A carried root that is not one is refused at import like a bad
// lock, before anything is copied or written (exit 3).
func TestCopyStackCarriesTrustedRoot(t *testing.T) {
	host := bothRegistries[0].host(t)
	far := bothRegistries[0].host(t)
	w := newKeylessWorld(t, host)
	keyless := []string{"--trusted-root", w.root, "--github-repository", "example/hello"}
	file := filepath.Join(w.dir, "stack", "addons.yaml")
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: "+host+"/addons/hello\n    version: \">=0.1.0, <1.0.0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, nil, append([]string{"lock", file}, keyless...)...); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	tarball := filepath.Join(t.TempDir(), "stack.tar")
	r := run(t, nil, append([]string{"copy", "--stack", file, "--to-tarball", tarball, "--carry-trusted-root", w.root, "--format", "json"}, keyless...)...)
	raw, _ := os.ReadFile(w.root)
	sum := sha256.Sum256(raw)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if r.code != 0 || !strings.Contains(r.err, "carried trusted root "+digest) || !strings.Contains(r.out, `"trustedRoot": "`+digest+`"`) {
		t.Fatalf("export with the root: %+v", r)
	}

	site := t.TempDir()
	policy := filepath.Join(site, "policy.yaml")
	if err := os.WriteFile(policy, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\n"+
		"trustedRoots:\n  - name: carried\n    path: carried.json\n    digest: "+digest+"\n"+
		"identities:\n  - name: release\n    issuer: "+testsigstore.GitHubActionsIssuer+"\n"+
		"    subject: https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0\n"+
		"scopes:\n  - identities: [release]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	farFile, rootOut := filepath.Join(site, "addons.yaml"), filepath.Join(site, "carried.json")

	// A carried root that is not a trusted root: refused before anything.
	broken := filepath.Join(t.TempDir(), "broken.tar")
	replaceTarFile(t, tarball, broken, "trusted_root.json", []byte(`{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`))
	for name, extra := range map[string][]string{"written out": {"--trusted-root-out", rootOut, "--policy", policy}, "not asked for": keyless} {
		args := append([]string{"copy", "--stack", farFile, "--from-tarball", broken, far + "/broken"}, extra...)
		if r := run(t, nil, args...); r.code != commands.ExitInvalid || !strings.Contains(r.err, "trusted_root.json") {
			t.Fatalf("%s: a broken carried root: %+v, want exit %d naming it", name, r, commands.ExitInvalid)
		}
		for _, f := range []string{farFile, rootOut} {
			if _, err := os.Stat(f); !os.IsNotExist(err) {
				t.Fatalf("%s: a refused import left %s (%v)", name, f, err)
			}
		}
		if r := run(t, nil, "inspect", far+"/broken/hello:0.1.0"); r.code != commands.ExitNotFound {
			t.Fatalf("%s: a refused import copied: %+v", name, r)
		}
	}

	in := run(t, nil, "copy", "--stack", farFile, "--from-tarball", tarball, far+"/airgap", "--trusted-root-out", rootOut, "--policy", policy)
	if in.code != 0 || !strings.Contains(in.err, "trusted root "+digest+" from the tarball written to "+rootOut) {
		t.Fatalf("import with --trusted-root-out: %+v", in)
	}
	if got, _ := os.ReadFile(rootOut); string(got) != string(raw) {
		t.Fatal("the root written differs from the one carried")
	}
	home := map[string]string{"HOME": t.TempDir()} // a cache, for --offline
	render := run(t, home, "render", "--stack", farFile, "--policy", policy)
	if render.code != 0 || !strings.Contains(render.out, "kind: Deployment") {
		t.Fatalf("render --stack on the other side under the carried root: %+v", render)
	}
	if off := run(t, home, "render", "--stack", farFile, "--policy", policy, "--offline"); off.code != 0 || off.out != render.out {
		t.Fatalf("render --stack --offline under the carried root: %+v", off)
	}
	// With --trusted-root the carried root would be trusted unpinned: refused.
	if r := run(t, nil, append([]string{"copy", "--stack", filepath.Join(site, "x.yaml"), "--from-tarball", tarball, far + "/again", "--trusted-root-out", filepath.Join(site, "y.json")}, keyless...)...); r.code != commands.ExitUsage {
		t.Fatalf("--trusted-root-out with --trusted-root: %+v", r)
	}
}
