package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestCopyStackCarriesValues: the stack tarball carries the values files
// the stack file names, so render --stack on the other side renders with
// them as written; a values path leaving the stack file's directory, or a
// values file that is no object, is refused at export (exit 3, nothing
// written); an import over an existing values file is refused before
// anything is copied (exit 8).
func TestCopyStackCarriesValues(t *testing.T) {
	w := newStackWorld(t, testregistry.New(t).Host())
	far := testregistry.New(t).Host()
	file := w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \">=0.1.0, <1.0.0\"\n    values: values/operator.yaml\n")
	defaults := run(t, nil, "config", "defaults", w.host+"/addons/cert-operator:0.2.0", "--policy", w.policy())
	if defaults.code != 0 || !strings.Contains(defaults.out, "replicas: 2") {
		t.Fatalf("config defaults: %+v", defaults)
	}
	values := filepath.Join(filepath.Dir(file), "values", "operator.yaml")
	os.MkdirAll(filepath.Dir(values), 0o755)
	os.WriteFile(values, []byte(strings.Replace(defaults.out, "replicas: 2", "replicas: 7", 1)), 0o644)
	if r := run(t, nil, "lock", file, "--policy", w.policy()); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	tarball := filepath.Join(t.TempDir(), "stack.tar")
	if r := run(t, nil, "copy", "--stack", file, "--to-tarball", tarball, "--policy", w.policy()); r.code != 0 {
		t.Fatalf("export: %+v", r)
	}

	policy := filepath.Join(w.dir, "far-policy.yaml")
	os.WriteFile(policy, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\nkeys:\n  - name: manager\n    path: manager.pub\n  - name: operator\n    path: operator.pub\nscopes:\n"+
		"  - prefix: "+far+"/airgap/cert-manager\n    keys: [manager]\n  - prefix: "+far+"/airgap/cert-operator\n    keys: [operator]\n"), 0o644)
	site := t.TempDir()
	// An existing values file on the other side: refused before any copy.
	farFile := filepath.Join(site, "addons.yaml")
	os.MkdirAll(filepath.Join(site, "values"), 0o755)
	os.WriteFile(filepath.Join(site, "values", "operator.yaml"), []byte("mine: true\n"), 0o644)
	if r := run(t, nil, "copy", "--stack", farFile, "--from-tarball", tarball, far+"/airgap", "--policy", policy); r.code != commands.ExitConflict || !strings.Contains(r.err, "operator.yaml") {
		t.Fatalf("import over an existing values file: %+v", r)
	}
	if r := run(t, nil, "inspect", far+"/airgap/cert-operator:0.2.0"); r.code != commands.ExitNotFound {
		t.Fatalf("a refused import copied: %+v", r)
	}
	if _, err := os.Stat(farFile); err == nil {
		t.Fatal("a refused import wrote the stack file")
	}
	os.RemoveAll(filepath.Join(site, "values"))

	if r := run(t, nil, "copy", "--stack", farFile, "--from-tarball", tarball, far+"/airgap", "--policy", policy); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	if got := mustRead(t, filepath.Join(site, "values", "operator.yaml")); !strings.Contains(got, "replicas: 7") {
		t.Fatalf("carried values file:\n%s", got)
	}
	r := run(t, nil, "render", "--stack", farFile, "--policy", policy)
	if r.code != 0 || !strings.Contains(r.out, "replicas: 7") {
		t.Fatalf("render --stack on the other side with the carried values: %+v", r)
	}

	// Refused at export, nothing written.
	for name, entry := range map[string]string{
		"a path leaving the directory": "    values: ../outside.yaml\n",
		"not an object":                "    values: values/list.yaml\n",
	} {
		t.Run(name, func(t *testing.T) {
			bad := w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \">=0.1.0, <1.0.0\"\n" + entry)
			dir := filepath.Dir(bad)
			os.WriteFile(filepath.Join(dir, "..", "outside.yaml"), []byte("a: 1\n"), 0o644)
			os.MkdirAll(filepath.Join(dir, "values"), 0o755)
			os.WriteFile(filepath.Join(dir, "values", "list.yaml"), []byte("- a\n- b\n"), 0o644)
			if r := run(t, nil, "lock", bad, "--policy", w.policy()); r.code != 0 {
				t.Fatalf("lock: %+v", r)
			}
			out := filepath.Join(t.TempDir(), "bad.tar")
			r := run(t, nil, "copy", "--stack", bad, "--to-tarball", out, "--policy", w.policy())
			if r.code != commands.ExitInvalid || !strings.Contains(r.err, "addons[0].values") {
				t.Fatalf("export: %+v", r)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a refused export wrote the tarball")
			}
		})
	}
}
