package examples_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/testregistry"
)

// ciCheckUpgrade is the name of the release workflows' check-upgrade step.
const ciCheckUpgrade = "Check that users of the previous release can upgrade"

// checkUpgradeBeforePush fails unless the workflow runs config
// check-upgrade against the highest version below the one released, and
// does so before anything is pushed.
func checkUpgradeBeforePush(t *testing.T, wf ghWorkflow) {
	t.Helper()
	for _, job := range wf.Jobs {
		check := slices.IndexFunc(job.Steps, func(s ghStep) bool { return s.Name == ciCheckUpgrade })
		push := slices.IndexFunc(job.Steps, func(s ghStep) bool { return strings.Contains(s.Run, "addonpack push") })
		if check < 0 || push < 0 || check > push {
			t.Fatalf("step %q (index %d) must come before the push (index %d)", ciCheckUpgrade, check, push)
		}
		run := job.Steps[check].Run
		for _, want := range []string{`addonpack config check-upgrade "$REGISTRY/addons/$NAME" "$ADDON_DIR"`, `--version "<$VERSION"`, "--allow-first-release"} {
			if !strings.Contains(run, want) {
				t.Errorf("step %q does not run %s:\n%s", ciCheckUpgrade, want, run)
			}
		}
	}
}

// TestUseCaseCIWorkflowUpgrade releases greeter 0.1.0 with the workflow (a
// first release: check-upgrade finds no previous version and passes), then
// a 0.2.0 whose source renamed spec.message to spec.text without a
// conversion rule: the workflow stops at check-upgrade, naming the field,
// and nothing is pushed. The real 0.2.0 (examples/greeter-v2, with its move
// rule) then passes the check against 0.1.0 and is released.
func TestUseCaseCIWorkflowUpgrade(t *testing.T) {
	wf, _ := loadWorkflow(t)
	checkUpgradeBeforePush(t, wf)
	reg := testregistry.New(t, testregistry.WithBasicAuth(ciActor, ciToken))
	r := newGHRunOf(t, reg.Host(), "greeter-v1", "v0.1.0")
	if failed, out := r.runWorkflow(t, wf); failed != "" {
		t.Fatalf("first release: step %q failed:\n%s", failed, out)
	}
	if log := r.logs[ciCheckUpgrade]; !strings.Contains(log, "no previous release: ") || !strings.Contains(log, "nothing to check") {
		t.Errorf("first release: check-upgrade said:\n%s", log)
	}
	first := r.outputs["push"]["ref"]

	// 0.2.0 renames spec.message to spec.text and keeps the config version:
	// no conversion at all. It builds and renders; the check stops it.
	renamed := filepath.Join(t.TempDir(), "greeter")
	copyDir(t, "greeter-v1", renamed)
	for file, edits := range map[string][]string{
		"addon.yaml":           {"version: 0.1.0", "version: 0.2.0"},
		"config/schema.yaml":   {"[replicas, message]", "[replicas, text]", "  message:", "  text:"},
		"config/defaults.yaml": {"  message:", "  text:"},
		"kustomization.yaml":   {"fieldPath: spec.message", "fieldPath: spec.text"},
	} {
		replaceInFile(t, filepath.Join(renamed, file), edits...)
	}
	pushed := len(reg.Log())
	r.checkout(t, renamed, "v0.2.0")
	failed, out := r.runWorkflow(t, wf)
	if failed != ciCheckUpgrade || !strings.Contains(out, "spec.message is not in the new schema, and nothing covers it") ||
		!strings.Contains(out, "resolved "+reg.Host()+"/acme/addons/greeter:0.1.0@"+strings.TrimPrefix(first, reg.Host()+"/acme/addons/greeter@")) {
		t.Fatalf("want the rename to stop the workflow at %q, got step %q:\n%s", ciCheckUpgrade, failed, out)
	}
	for _, req := range reg.Log()[pushed:] {
		if req.Method != "GET" && req.Method != "HEAD" {
			t.Errorf("registry saw %s %s: something was pushed", req.Method, req.Path)
		}
	}

	// The real 0.2.0 moves spec.message to spec.greeting.text: it passes.
	r.checkout(t, "greeter-v2", "v0.2.0")
	if failed, out := r.runWorkflow(t, wf); failed != "" {
		t.Fatalf("0.2.0 with its rule: step %q failed:\n%s", failed, out)
	}
	if log := r.logs[ciCheckUpgrade]; !strings.Contains(log, "spec.message is not in the new schema: rule move message → greeting.text") ||
		!strings.Contains(log, "can upgrade to ./addon: greeter.addons.example.com/v1alpha1 → greeter.addons.example.com/v1beta1") {
		t.Errorf("0.2.0: check-upgrade said:\n%s", log)
	}
	if ref := r.outputs["push"]["ref"]; !strings.HasPrefix(ref, reg.Host()+"/acme/addons/greeter@sha256:") || ref == first {
		t.Errorf("0.2.0 pushed %q", ref)
	}
}

// replaceInFile applies old, new pairs to a file, each of which must occur.
func replaceInFile(t *testing.T, path string, oldNew ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(s, oldNew[i]) {
			t.Fatalf("%s: %q not found", path, oldNew[i])
		}
		s = strings.ReplaceAll(s, oldNew[i], oldNew[i+1])
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
