package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExampleUpgrade walks the upgrade of the example pair greeter-v1 (0.1.0,
// GreeterConfig v1alpha1) → greeter-v2 (0.2.0, v1beta1, spec.message moved
// to spec.greeting.text) with the binary, as docs/config-evolution.md tells it: the
// publisher's check-upgrade passes, and fails when the rule is taken out;
// the user's old values file shows its effect in diff and renders.
func TestExampleUpgrade(t *testing.T) {
	out, code := addonpack(t, ".", nil, "config", "check-upgrade", "./greeter-v1", "./greeter-v2")
	if code != 0 || !strings.Contains(out, "spec.message is not in the new schema: rule move message → greeting.text") ||
		!strings.Contains(out, "spec.replicas: upper bound lowered from <= 10 to <= 5: rule fail: spec.replicas above 5") ||
		!strings.Contains(out, "./greeter-v1 can upgrade to ./greeter-v2: greeter.addons.example.com/v1alpha1 → greeter.addons.example.com/v1beta1") {
		t.Fatalf("check-upgrade (exit %d):\n%s", code, out)
	}

	// Without the rule, the rename is caught.
	noRule := filepath.Join(t.TempDir(), "greeter")
	copyDir(t, "greeter-v2", noRule)
	a, err := os.ReadFile(filepath.Join(noRule, "addon.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stripped := strings.Replace(string(a), "            - move: {from: message, to: greeting.text}\n", "", 1)
	if stripped == string(a) {
		t.Fatal("the example's move rule was not found")
	}
	if err := os.WriteFile(filepath.Join(noRule, "addon.yaml"), []byte(stripped), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = addonpack(t, ".", nil, "config", "check-upgrade", "./greeter-v1", noRule)
	if code != 3 || !strings.Contains(out, "spec.message is not in the new schema, and nothing covers it") {
		t.Fatalf("check-upgrade without the rule (exit %d):\n%s", code, out)
	}
	// The builder refuses it too: its test vector no longer converts.
	if out, code := addonpack(t, ".", nil, "build", noRule); code != 3 || !strings.Contains(out, "spec.config.conversion.tests[0]") {
		t.Fatalf("build without the rule (exit %d):\n%s", code, out)
	}

	// Without the fail rule, the lowered maximum of spec.replicas is caught:
	// an old object with 8 replicas would no longer validate.
	noFail := filepath.Join(t.TempDir(), "greeter")
	copyDir(t, "greeter-v2", noFail)
	a, err = os.ReadFile(filepath.Join(noFail, "addon.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rule := "            - if: \"has(spec.replicas) && spec.replicas > 5\"\n              fail:\n"
	i := strings.Index(string(a), rule)
	j := strings.Index(string(a), "            - move:")
	if i < 0 || j < i {
		t.Fatal("the example's fail rule was not found")
	}
	if err := os.WriteFile(filepath.Join(noFail, "addon.yaml"), []byte(string(a)[:i]+string(a)[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = addonpack(t, ".", nil, "config", "check-upgrade", "./greeter-v1", noFail)
	if code != 3 || !strings.Contains(out, "spec.replicas: upper bound lowered from <= 10 to <= 5, and nothing covers it") ||
		!strings.Contains(out, "spec.message is not in the new schema: rule move") {
		t.Fatalf("check-upgrade without the fail rule (exit %d):\n%s", code, out)
	}

	// A next release (0.3.0) that no longer converts 0.2.0's test vector: the
	// gate names the vector file of the previous release and the rule.
	v3 := filepath.Join(t.TempDir(), "greeter")
	copyDir(t, "greeter-v2", v3)
	replaceInFile(t, filepath.Join(v3, "addon.yaml"), "            - move: {from: message, to: greeting.text}\n",
		"            - move: {from: message, to: greeting.text}\n            - if: \"spec.replicas == 3\"\n              fail: {message: \"three replicas are gone\"}\n")
	out, code = addonpack(t, ".", nil, "config", "check-upgrade", "./greeter-v2", v3, "--format", "json")
	if code != 3 || !strings.Contains(out, `"./greeter-v2 config/tests/v1alpha1.yaml: conversion failed: cannot convert v1alpha1 → v1beta1: three replicas are gone`) ||
		!strings.Contains(out, `"./greeter-v2 config/tests/v1alpha1.expected.yaml: converts and resolves"`) {
		t.Fatalf("check-upgrade of a release that breaks the previous test vector (exit %d):\n%s", code, out)
	}

	// The user: the old values file, diffed across the upgrade, then rendered.
	values := filepath.Join("greeter-v1", "config", "custom.yaml")
	out, code = addonpack(t, ".", nil, "diff", "./greeter-v1", "./greeter-v2", "--values", values)
	if code != 0 || !strings.Contains(out, values+": converted v1alpha1 → v1beta1") || !strings.Contains(out, "+          value: en") {
		t.Fatalf("diff (exit %d):\n%s", code, out)
	}
	rendered, code := addonpack(t, ".", nil, "render", "./greeter-v2", "--values", values)
	want, err := os.ReadFile(filepath.Join("greeter-v2", "expected", "custom.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || rendered != string(want)+values+": converted v1alpha1 → v1beta1\n" {
		t.Fatalf("render (exit %d):\n%s", code, rendered)
	}
}
