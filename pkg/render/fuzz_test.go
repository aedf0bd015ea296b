package render

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzBuild fuzzes the root kustomization.yaml of a small in-memory package.
// Build must not panic, and only kustomize's own panics may be recovered (a
// panic in this package's code fails the target), must not
// leave the in-memory package (TestMain makes any git clone or http fetch
// fail at once, and the target fails on such an attempt), and its
// output must never contain the local-config object.
func FuzzBuild(f *testing.F) {
	seeds := []string{
		"resources:\n- cm.yaml\n",
		"resources:\n- cm.yaml\n- base\nnamePrefix: x-\nnamespace: ns\n",
		"resources:\n- cm.yaml\nreplacements:\n- source: {kind: FuzzConfig, fieldPath: spec.value}\n  targets:\n  - select: {kind: ConfigMap, name: cm}\n    fieldPaths: [data.a]\n",
		"resources:\n- github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v1.0.6\n",
		"resources:\n- https://example.com/x.yaml\n",
		"components:\n- comp\n- git@github.com:a/b\n",
		"helmCharts:\n- name: x\n",
		"generators:\n- gen.yaml\n",
		"transformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {name: p}\n  path: http://example.com/p\n",
		"patches:\n- path: https://example.com/p.yaml\n",
		"openapi:\n  path: file:///etc/passwd\n",
		"configMapGenerator:\n- name: g\n  files: [k=https://x/y]\n  envs: [../../etc/env]\n",
		"resources:\n- ../outside\n- /abs\n- ''\n",
		"bases: [base, base]\nresources: [cm.yaml, cm.yaml]\n",
		"kind: Component\napiVersion: kustomize.config.k8s.io/v1alpha1\n",
		"resources: not-a-list\n",
		"{{{",
		"",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	config := []byte("apiVersion: fuzz.example.com/v1\nkind: FuzzConfig\nmetadata:\n  name: fuzz\nspec:\n  value: from-config\n")
	f.Fuzz(func(t *testing.T, kustomization string) {
		m := fstest.MapFS{
			"kustomization.yaml":      {Data: []byte(kustomization)},
			"cm.yaml":                 {Data: []byte(cm)},
			"gen.yaml":                {Data: []byte(execGen)},
			"base/kustomization.yaml": {Data: []byte("resources:\n- cm.yaml\n")},
			"base/cm.yaml":            {Data: []byte(strings.Replace(cm, "name: cm", "name: base-cm", 1))},
			"comp/kustomization.yaml": {Data: []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n")},
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, err := Build(ctx, Input{Files: m, Root: ".", Config: config})
		if errors.Is(err, errPanic) {
			t.Fatalf("Build panicked outside kustomize: %v", err)
		}
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "'git' program") || strings.Contains(msg, `Get "http`) {
				t.Fatalf("kustomize reached for the network: %v", err)
			}
			return
		}
		if strings.Contains(string(out), "FuzzConfig") {
			t.Fatalf("config object in the output:\n%s", out)
		}
		if _, err := Images(out); err != nil {
			t.Fatalf("Images on Build output: %v", err)
		}
	})
}
