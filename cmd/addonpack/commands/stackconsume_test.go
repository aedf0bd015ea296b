package commands_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestStackConsumers renders and pulls a locked stack: dependencies first,
// each add-on by its locked digest and verified again, with its own values.
func TestStackConsumers(t *testing.T) {
	w := newStackWorld(t, testregistry.New(t).Host())
	policy := w.policy()
	file := w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \">=0.1.0, <1.0.0\"\n    values: operator.yaml\n")
	stackDir := filepath.Dir(file)
	if err := os.WriteFile(filepath.Join(stackDir, "operator.yaml"), []byte("apiVersion: cert-operator.addons.example.com/v1alpha1\nkind: CertOperatorConfig\nspec:\n  replicas: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if r := run(t, nil, "render", "--stack", file, "--policy", policy); r.code == 0 || !strings.Contains(r.err, "run addonpack lock") {
		t.Fatalf("render --stack without a lock: %+v", r)
	}
	if r := run(t, nil, "lock", file, "--policy", policy); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}

	r := run(t, nil, "render", "--stack", file, "--policy", policy)
	if r.code != 0 {
		t.Fatalf("render --stack: %+v", r)
	}
	manager, operator := strings.Index(r.out, "# cert-manager 1.15.3 ("), strings.Index(r.out, "# cert-operator 0.2.0 (")
	if manager < 0 || operator < manager || !strings.Contains(r.out[operator:], "replicas: 3") || strings.Contains(r.out[:operator], "replicas: 3") {
		t.Fatalf("render --stack: not in order, or values not applied to cert-operator alone:\n%s", r.out)
	}
	// The same, by each add-on alone, with the same values: byte-equal pieces.
	alone := run(t, nil, "render", w.host+"/addons/cert-operator:0.2.0", "--policy", policy, "--values", filepath.Join(stackDir, "operator.yaml"))
	if alone.code != 0 || !strings.HasSuffix(r.out, alone.out) {
		t.Fatalf("the stack's cert-operator differs from render of it alone: %+v", alone)
	}

	out := filepath.Join(t.TempDir(), "rendered")
	if r := run(t, nil, "render", "--stack", file, "--policy", policy, "--format", "kustomize", "-o", out); r.code != 0 {
		t.Fatalf("render --stack --format kustomize: %+v", r)
	}
	if order := mustRead(t, filepath.Join(out, "order.txt")); order != "01-cert-manager\n02-cert-operator\n" {
		t.Fatalf("order.txt = %q", order)
	}
	for _, d := range []string{"01-cert-manager", "02-cert-operator"} {
		if _, err := os.Stat(filepath.Join(out, d, "kustomization.yaml")); err != nil {
			t.Fatal(err)
		}
	}

	pulled := filepath.Join(t.TempDir(), "pulled")
	if r := run(t, nil, "pull", "--stack", file, "--policy", policy, "-o", pulled); r.code != 0 {
		t.Fatalf("pull --stack: %+v", r)
	}
	if mustRead(t, filepath.Join(pulled, "order.txt")) != "cert-manager\ncert-operator\n" {
		t.Fatal("pull --stack: order.txt")
	}
	if r := run(t, nil, "pull", "--stack", file, "--policy", policy, "-o", pulled); r.code != commands.ExitConflict {
		t.Fatalf("pull --stack into a full directory: %+v", r)
	}

	// Flux and Argo CD objects, pinned by the locked digests, in order;
	// cert-operator's values travel as a patch of its config object.
	digests := regexp.MustCompile(`sha256:[0-9a-f]{64}`)
	for _, tool := range []string{"flux", "argocd"} {
		r := run(t, nil, "render", "--stack", file, "--policy", policy, "--for", tool)
		if r.code != 0 {
			t.Fatalf("render --stack --for %s: %+v", tool, r)
		}
		for _, a := range []string{"cert-manager", "cert-operator"} {
			if !strings.Contains(r.out, w.host+"/addons/"+a) {
				t.Fatalf("--for %s lacks %s:\n%s", tool, a, r.out)
			}
		}
		if strings.Count(r.out, "path: /spec") != 1 || !strings.Contains(r.out, "replicas: 3") {
			t.Fatalf("--for %s: want cert-operator's values, and only its, as a patch:\n%s", tool, r.out)
		}
		got := digests.ReplaceAllString(strings.ReplaceAll(r.out, w.host, "REGISTRY"), "sha256:DIGEST")
		golden(t, "stack-"+tool+".yaml", got)
	}
}
