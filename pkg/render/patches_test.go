package render

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestPatches: Input.Patches are appended to the root kustomization's
// patches (created when missing, after the package's own when present), and
// a patch replacing the config object's spec feeds the root's replacements,
// which kustomize runs after the root's patches.
func TestPatches(t *testing.T) {
	const (
		deploy   = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: hello}\nspec: {replicas: 1, paused: false}\n"
		defaults = "apiVersion: hello.example.com/v1alpha1\nkind: HelloConfig\nmetadata:\n  name: from-the-file\n  annotations: {config.kubernetes.io/local-config: \"true\"}\nspec: {replicas: 2}\n"
		repl     = "replacements:\n- source: {kind: HelloConfig, fieldPath: spec.replicas}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [spec.replicas]\n"
		own      = "patches:\n- patch: '[{\"op\": \"replace\", \"path\": \"/spec/paused\", \"value\": true}]'\n  target: {kind: Deployment}\n"
	)
	spec := Patch{Patch: "- op: replace\n  path: /spec\n  value:\n    replicas: 7\n", Target: &Selector{Group: "hello.example.com", Version: "v1alpha1", Kind: "HelloConfig"}}
	for _, tc := range []struct {
		name, kustomization string
		want                []string
	}{
		{"no patches of its own", "resources: [deploy.yaml, defaults.yaml]\n" + repl, []string{"replicas: 7", "paused: false"}},
		{"after the package's", "resources: [deploy.yaml, defaults.yaml]\n" + own + repl, []string{"replicas: 7", "paused: true"}},
		{"null patches", "resources: [deploy.yaml, defaults.yaml]\npatches: null\n" + repl, []string{"replicas: 7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkg := files("kustomization.yaml", tc.kustomization, "deploy.yaml", deploy, "defaults.yaml", defaults)
			out, err := Build(context.Background(), Input{Files: pkg, Root: ".", Patches: []Patch{spec}})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("want %q in:\n%s", w, out)
				}
			}
			if strings.Contains(string(out), "HelloConfig") {
				t.Errorf("the local-config object reached the output:\n%s", out)
			}
		})
	}
	if _, err := Build(context.Background(), Input{Files: files("kustomization.yaml", "resources: [deploy.yaml]\npatches: {}\n", "deploy.yaml", deploy), Root: ".", Patches: []Patch{spec}}); err == nil || !strings.Contains(err.Error(), "patches: not a list") {
		t.Fatalf("patches not a list: %v", err)
	}
}

func TestRootComponents(t *testing.T) {
	got, err := RootComponents(files("deploy/kustomization.yml", "components: [./c/one/, c/two]\n"), "deploy")
	if err != nil || !slices.Equal(got, []string{"c/one", "c/two"}) {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := RootComponents(files("kustomization.yaml", "resources: []\n"), "."); err != nil || got != nil {
		t.Fatalf("none: %v %v", got, err)
	}
	if _, err := RootComponents(files("x.yaml", ""), "."); err == nil || !strings.Contains(err.Error(), "no kustomization file") {
		t.Fatalf("no kustomization: %v", err)
	}
}
