package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// TestPolicyExport: the verb's exit codes and outputs (the mapping itself
// is pkg/policyexport's, tested there against the consumers' CRDs).
func TestPolicyExport(t *testing.T) {
	strict := filepath.Join("..", "..", "..", "pkg", "policyexport", "testdata", "policies", "strict.yaml")
	keys := filepath.Join("..", "..", "..", "pkg", "policyexport", "testdata", "policies", "keys.yaml")
	critical := "registry.example.com/addons/critical/dns:1.0.0"

	r := run(t, nil, "policy", "export", strict, "--for", "flux", "--ref", critical)
	if r.code != commands.ExitUsage || r.out != "" || !strings.Contains(r.err, "not enforced would be:") ||
		!strings.Contains(r.err, `attestation rule "no-critical"`) || !strings.Contains(r.err, "threshold 2") {
		t.Fatalf("inexpressible: exit %d (want %d), stdout %q, stderr %s", r.code, commands.ExitUsage, r.out, r.err)
	}
	r = run(t, nil, "policy", "export", strict, "--for", "flux", "--ref", critical, "--lossy")
	if r.code != 0 || !strings.HasPrefix(r.out, "# addonpack: Flux checks the signature, not ") || !strings.Contains(r.out, "\n# addonpack: not enforced by Flux: ") || !strings.Contains(r.out, "kind: OCIRepository") {
		t.Fatalf("--lossy: exit %d, stdout %s, stderr %s", r.code, r.out, r.err)
	}
	if r := run(t, nil, "policy", "export", strict, "--for", "flux"); r.code != commands.ExitUsage || !strings.Contains(r.err, "--ref") {
		t.Fatalf("two scopes, no --ref: exit %d, stderr %s", r.code, r.err)
	}
	if r := run(t, nil, "policy", "export", keys, "--for", "helm"); r.code != commands.ExitUsage {
		t.Fatalf("--for helm: exit %d, stderr %s", r.code, r.err)
	}

	dir := filepath.Join(t.TempDir(), "argocd")
	if r := run(t, nil, "policy", "export", keys, "--for", "argocd", "-o", dir); r.code != 0 {
		t.Fatalf("-o DIR: exit %d, stderr %s", r.code, r.err)
	}
	for _, f := range []string{"plugin.yaml", "addonpack-cmp.yaml", "repo-server-patch.yaml"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if r := run(t, nil, "policy", "export", keys, "--for", "argocd", "-o", dir); r.code != commands.ExitConflict {
		t.Fatalf("-o DIR again: exit %d (want %d), stderr %s", r.code, commands.ExitConflict, r.err)
	}
	if r := run(t, nil, "policy", "export", keys, "--for", "argocd", "-o", dir, "--force"); r.code != 0 {
		t.Fatalf("--force: exit %d, stderr %s", r.code, r.err)
	}
}

// pluginApp: render --for argocd --plugin writes an Application whose
// plugin parameters, run as the plugin's generate command runs them (render
// REF --policy the exported self-contained policy --values), give what
// render --values gives with the key.
func pluginApp(t *testing.T, env map[string]string, ref, pubKey, values string, norm *strings.Replacer) {
	t.Helper()
	app := run(t, env, "render", "--for", "argocd", "--plugin", "addonpack", ref, "--key", pubKey, "--values", values)
	if app.code != 0 {
		t.Fatalf("--plugin: %+v", app)
	}
	golden(t, "argocd-plugin.yaml", norm.Replace(app.out))
	if r := run(t, env, "render", "--for", "flux", "--plugin", "addonpack", ref, "--key", pubKey); r.code != commands.ExitUsage {
		t.Fatalf("--for flux --plugin: %+v", r)
	}
	var a struct {
		Spec struct {
			Source struct {
				Plugin struct {
					Name string
					Env  []struct{ Name, Value string }
				}
			}
		}
	}
	if err := yaml.Unmarshal([]byte(app.out), &a); err != nil {
		t.Fatal(err)
	}
	params := map[string]string{}
	for _, e := range a.Spec.Source.Plugin.Env {
		params[e.Name] = e.Value
	}
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	abs, _ := filepath.Abs(pubKey)
	os.WriteFile(policy, []byte("apiVersion: addonpack.dev/v1alpha2\nkind: VerificationPolicy\nkeys:\n  - name: release\n    path: "+abs+"\nscopes:\n  - keys: [release]\n"), 0o600)
	out := filepath.Join(dir, "argocd")
	if r := run(t, env, "policy", "export", policy, "--for", "argocd", "-o", out); r.code != 0 {
		t.Fatalf("policy export: %+v", r)
	}
	var cm struct{ Data map[string]string }
	raw, _ := os.ReadFile(filepath.Join(out, "addonpack-cmp.yaml"))
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		t.Fatal(err)
	}
	mounted := filepath.Join(dir, "mounted")
	os.Mkdir(mounted, 0o700)
	for k, v := range cm.Data {
		os.WriteFile(filepath.Join(mounted, k), []byte(v), 0o600)
	}
	vals := filepath.Join(dir, "values.yaml")
	os.WriteFile(vals, []byte(params["ADDONPACK_VALUES"]), 0o600)
	got := run(t, env, "render", params["ADDONPACK_REF"], "--policy", filepath.Join(mounted, "policy.yaml"), "--values", vals)
	want := run(t, env, "render", ref, "--key", pubKey, "--values", values)
	if got.code != 0 || want.code != 0 || got.out != want.out || a.Spec.Source.Plugin.Name != "addonpack" {
		t.Fatalf("the plugin's render differs from render --values:\nplugin %+v\nrender %+v", got, want)
	}
	// An Application naming a directory of its own checkout (a source
	// add-on, never verified) instead of a reference is refused: the
	// plugin's policy is not silently ignored.
	src, _ := filepath.Abs(filepath.Join("..", "..", "..", "examples", "hello"))
	if r := run(t, env, "render", src, "--policy", filepath.Join(mounted, "policy.yaml")); r.code != commands.ExitUsage || !strings.Contains(r.err, "never verified") || r.out != "" {
		t.Errorf("the plugin's render of the source directory %s: %+v, want exit %d refusing it", src, r, commands.ExitUsage)
	}
}
