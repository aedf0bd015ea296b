package interop_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
)

// keylessPublish pushes hello to host with push --keyless against the test
// Sigstore's loopback services, as the workflow identity w, and returns it
// with the trusted root's path.
func keylessPublish(t *testing.T, host string, srv *testsigstore.Servers, w testsigstore.GitHubWorkflow) (published, string) {
	t.Helper()
	dir := t.TempDir()
	p := published{dir: dir, src: filepath.Join(dir, "hello")}
	root := srv.TrustedRootFile(t)
	must(t, nil, "init", p.src)
	p.ref = host + "/addons/hello:0.1.0"
	p.pinned = strings.TrimSpace(must(t, nil, "push", p.src, p.ref, "--keyless", "--identity-token", srv.Token(t, w.Claims()),
		"--fulcio-url", srv.Fulcio.URL, "--rekor-url", srv.Rekor.URL, "--timestamp-server-url", srv.TSA.URL))
	p.digest = p.pinned[strings.Index(p.pinned, "@")+1:]
	return p, root
}

// readmeKeylessCommands returns docs/signing.md's cosign commands for keyless
// bundles (the lines that name a certificate identity).
func readmeKeylessCommands(t *testing.T) [][]string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/signing.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "cosign verify") && strings.Contains(line, "--certificate-identity") {
			cmds = append(cmds, strings.Fields(line)[1:])
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("docs/signing.md's keyless cosign commands: found %d, want verify and verify-attestation", len(cmds))
	}
	return cmds
}

// TestCosignVerifiesKeyless runs docs/signing.md's cosign commands for keyless
// bundles as written — the trusted root, the identity and the reference
// substituted, --allow-insecure-registry added — with the real cosign CLI
// on what addonpack push --keyless stored (signature and SLSA provenance),
// and sees cosign refuse another workflow ref; addonpack verify --policy
// (same root, same identity, provenance required) accepts it too.
func TestCosignVerifiesKeyless(t *testing.T) {
	cosign := tool(t, "cosign")
	cmds := readmeKeylessCommands(t)
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := testsigstore.StartServers(t, ss)
	w := testsigstore.GitHubWorkflow{Repository: "example/addons", Workflow: ".github/workflows/release.yml", Ref: "refs/tags/v0.1.0"}
	id := w.Identity()
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			p, root := keylessPublish(t, reg.Start(t), srv, w)
			for _, c := range cmds {
				args := []string{}
				for _, a := range c {
					switch a {
					case "trusted_root.json":
						a = root
					case "registry.example.com/addons/hello@sha256:…":
						a = p.pinned
					}
					args = append(args, a)
				}
				if !slices.Contains(args, id.URI) || !slices.Contains(args, testsigstore.GitHubActionsIssuer) {
					t.Fatalf("docs/signing.md command %v does not name the workflow identity %s", c, id.URI)
				}
				args = append(args, "--allow-insecure-registry")
				if out := peer(t, cosign, nil, args...); !claims(out, p.digest) {
					t.Fatalf("cosign %s printed no claim about %s:\n%s", strings.Join(args, " "), p.digest, out)
				}
			}
			// addonpack's own verification, offline, through a policy
			// pinning the same root and trusting the same identity.
			must(t, nil, "verify", p.pinned, "--policy", keylessPolicy(t, root, id), "--require-provenance")
			other := []string{"verify", "--new-bundle-format", "--trusted-root", root,
				"--certificate-identity", id.URI, "--certificate-oidc-issuer", testsigstore.GitHubActionsIssuer,
				"--certificate-github-workflow-ref", "refs/tags/v9.9.9", "--allow-insecure-registry", p.pinned}
			if out := peerFails(t, cosign, nil, other...); !strings.Contains(out, "refs/tags/v9.9.9") {
				t.Errorf("cosign verify with another workflow ref: %s", out)
			}
		})
	}
}

// peerFails runs a peer binary that must fail and returns its output.
func peerFails(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	out, stderr, err := peerRun(t, bin, env, args...)
	if err == nil {
		t.Fatalf("%s %s succeeded, want a refusal:\n%s", filepath.Base(bin), strings.Join(args, " "), out)
	}
	return out + stderr
}

// TestCosignSignsKeylessLocally: the helper testsigstore.Servers.CosignSign
// has the real cosign CLI sign and attest keyless against the loopback
// Fulcio and Rekor, in both storage schemes; cosign's own verification with
// the test trusted root accepts the result, and so does addonpack verify
// with a policy pinning that root and trusting that identity.
func TestCosignSignsKeylessLocally(t *testing.T) {
	cosign := tool(t, "cosign")
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := testsigstore.StartServers(t, ss)
	w := testsigstore.GitHubWorkflow{Repository: "example/hello", Workflow: ".github/workflows/release.yml", Ref: "refs/tags/v0.1.0"}
	id := w.Identity()
	root := srv.TrustedRootFile(t)
	pred := filepath.Join(t.TempDir(), "provenance.json")
	if err := os.WriteFile(pred, []byte(`{"buildDefinition":{"buildType":"https://example.com/build"},"runDetails":{"builder":{"id":"https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	host := registries[0].Start(t)
	for _, bundle := range []bool{false, true} {
		name := "classic"
		if bundle {
			name = "bundle"
		}
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "hello")
			must(t, nil, "init", src)
			pinned := strings.TrimSpace(must(t, nil, "push", src, host+"/"+name+"/hello:0.1.0"))
			digest := pinned[strings.Index(pinned, "@")+1:]
			// With timestamps: the test root lists a TSA, so addonpack
			// requires one (a root without TSAs would not).
			srv.CosignSign(t, cosign, pinned, w.Claims(), testsigstore.CosignOptions{NewBundleFormat: bundle, TSA: true})
			srv.CosignSign(t, cosign, pinned, w.Claims(), testsigstore.CosignOptions{NewBundleFormat: bundle, TSA: true, Predicate: pred, PredicateType: "slsaprovenance1"})
			// cosign reads a trusted root only with --new-bundle-format;
			// for the classic scheme it takes the same keys from the
			// environment.
			var env, common []string
			if bundle {
				common = []string{"--new-bundle-format", "--trusted-root", root}
			} else {
				env = srv.CosignTrustEnv(t)
			}
			common = append(common, "--certificate-oidc-issuer", testsigstore.GitHubActionsIssuer, "--allow-insecure-registry")
			verify := append([]string{"--certificate-identity", id.URI}, common...)
			if out := peer(t, cosign, env, append(append([]string{"verify"}, verify...), pinned)...); !claims(out, digest) {
				t.Fatalf("cosign verify: no claim about %s:\n%s", digest, out)
			}
			if out := peer(t, cosign, env, append(append([]string{"verify-attestation", "--type", "slsaprovenance1"}, verify...), pinned)...); !claims(out, digest) {
				t.Fatalf("cosign verify-attestation: no claim about %s:\n%s", digest, out)
			}
			// addonpack verifies what cosign signed and verified, in both
			// schemes, offline with the same root and identity.
			must(t, nil, "verify", pinned, "--policy", keylessPolicy(t, root, id))
			wrong := append([]string{"verify", "--certificate-identity", "https://github.com/example/other/.github/workflows/release.yml@refs/tags/v0.1.0"}, common...)
			if out := peerFails(t, cosign, env, append(wrong, pinned)...); !strings.Contains(out, "expected SAN value \"https://github.com/example/other/") && !strings.Contains(out, "none of the expected identities matched") {
				t.Errorf("cosign verify with another identity: %s", out)
			}
		})
	}
}

// keylessPolicy writes a policy that pins root by digest and trusts the
// workflow identity id (exact subject), for every reference.
func keylessPolicy(t *testing.T, root string, id testsigstore.Identity) string {
	t.Helper()
	b, err := os.ReadFile(root)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	p := filepath.Join(filepath.Dir(root), "policy.yaml")
	policy := "apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\n" +
		"trustedRoots:\n  - name: test\n    path: " + filepath.Base(root) + "\n    digest: sha256:" + hex.EncodeToString(sum[:]) + "\n" +
		"identities:\n  - name: release\n    issuer: " + id.Extensions.Issuer + "\n    subject: " + id.URI + "\n" +
		"    extensions:\n      githubWorkflowRepository: " + id.Extensions.GithubWorkflowRepository + "\n" +
		"scopes:\n  - identities: [release]\n"
	if err := os.WriteFile(p, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
