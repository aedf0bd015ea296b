package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// TestKeylessVerbs: every consuming verb that shares verify's keyless flags
// accepts a keyless-signed add-on under --trusted-root with the identity
// that signed it (--github-repository, or cosign's --certificate-identity
// and --certificate-oidc-issuer), and refuses it with exit 9, naming the
// reference and the certificate that matched no identity, under another.
func TestKeylessVerbs(t *testing.T) {
	host := bothRegistries[0].host(t)
	w := newKeylessWorld(t, host)
	stack := filepath.Join(w.dir, "stack", "addons.yaml")
	if err := os.MkdirAll(filepath.Dir(stack), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: " + host + "/addons/hello\n    version: \">=0.1.0, <1.0.0\"\n"
	if err := os.WriteFile(stack, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	right := map[string][]string{
		"github-repository": {"--trusted-root", w.root, "--github-repository", "example/hello"},
		"cosign flags": {"--trusted-root", w.root,
			"--certificate-identity", "https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0",
			"--certificate-oidc-issuer", "https://token.actions.githubusercontent.com"},
	}
	wrong := map[string][]string{
		"other repository": {"--trusted-root", w.root, "--github-repository", "example/other"},
		"other subject": {"--trusted-root", w.root,
			"--certificate-identity", "https://github.com/example/hello/.github/workflows/release.yml@refs/heads/main",
			"--certificate-oidc-issuer", "https://token.actions.githubusercontent.com"},
	}
	mirror := func(i int) string { return host + "/mirror" + string(rune('a'+i)) + "/hello:0.1.0" }
	// Each verb, and what its success leaves to check.
	verbs := []struct {
		name string
		args func(i int) []string
		out  string // in stdout on success
		file string // exists after success, absent after a refusal
	}{
		{"render", func(int) []string { return []string{"render", w.ref} }, "kind: Deployment", ""},
		{"config schema", func(int) []string { return []string{"config", "schema", w.ref} }, `"properties"`, ""},
		{"config defaults", func(int) []string { return []string{"config", "defaults", w.ref} }, "kind:", ""},
		{"diff", func(int) []string { return []string{"diff", w.ref, w.pinned, "--exit-code"} }, "", ""},
		{"copy", func(i int) []string { return []string{"copy", w.ref, mirror(i)} }, "", ""},
		{"lock", func(int) []string { return []string{"lock", stack} }, "", filepath.Join(filepath.Dir(stack), "addons.lock")},
		{"render --stack", func(int) []string { return []string{"render", "--stack", stack} }, "kind: Deployment", ""},
	}
	for _, v := range verbs {
		t.Run(v.name, func(t *testing.T) {
			// Refusals first, so that lock's file does not exist yet (render
			// --stack, after lock, reads it).
			i := 0
			for name, flags := range wrong {
				i++
				r := run(t, nil, append(v.args(i), flags...)...)
				if r.code != commands.ExitVerify || !strings.Contains(r.err, "matches none of the scope's identities") ||
					!strings.Contains(r.err, host+"/addons/hello") || !strings.Contains(r.err, "https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0") {
					t.Fatalf("%s: want exit %d naming the reference and the certificate's subject, got %+v", name, commands.ExitVerify, r)
				}
				if v.name == "copy" {
					if r := run(t, nil, "inspect", mirror(i)); r.code != commands.ExitNotFound {
						t.Fatalf("%s: a refused copy left %s behind: %+v", name, mirror(i), r)
					}
				}
				if v.file != "" {
					if _, err := os.Stat(v.file); !os.IsNotExist(err) {
						t.Fatalf("%s: a refused %s wrote %s (%v)", name, v.name, v.file, err)
					}
				}
			}
			for name, flags := range right {
				i++
				r := run(t, nil, append(v.args(i), flags...)...)
				if r.code != 0 || !strings.Contains(r.out, v.out) {
					t.Fatalf("%s: %+v", name, r)
				}
				if v.file != "" {
					if _, err := os.Stat(v.file); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
			}
		})
	}
}
