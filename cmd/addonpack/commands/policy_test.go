package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if r.code != 0 || !strings.HasPrefix(r.out, "# addonpack: not enforced by Flux: ") || !strings.Contains(r.out, "kind: OCIRepository") {
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
