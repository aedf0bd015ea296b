package render

import (
	"context"
	"strings"
	"testing"
)

// TestPackedDefaultsReplaced: a package that lists its defaults object as a
// local-config resource builds standalone (as Flux, Argo CD or kubectl -k
// would build it), and a config object given to Build replaces that resource
// instead of being added beside it.
func TestPackedDefaultsReplaced(t *testing.T) {
	pkg := files(
		"kustomization.yaml", "resources: [deploy.yaml, config/defaults.yaml]\nreplacements:\n- source: {kind: HelloConfig, fieldPath: spec.replicas}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [spec.replicas]\n",
		"deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: hello}\nspec: {replicas: 1}\n",
		"config/defaults.yaml", "apiVersion: hello.example.com/v1alpha1\nkind: HelloConfig\nmetadata:\n  name: hello\n  annotations: {config.kubernetes.io/local-config: \"true\"}\nspec: {replicas: 2}\n",
	)
	standalone, err := Build(context.Background(), Input{Files: pkg, Root: "."})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(standalone), "replicas: 2") || strings.Contains(string(standalone), "HelloConfig") {
		t.Fatalf("standalone build:\n%s", standalone)
	}
	cfg := "apiVersion: hello.example.com/v1alpha1\nkind: HelloConfig\nmetadata: {name: hello}\nspec: {replicas: 5}\n"
	out, err := Build(context.Background(), Input{Files: pkg, Root: ".", Config: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "replicas: 5") || strings.Contains(string(out), "HelloConfig") {
		t.Fatalf("configured build:\n%s", out)
	}
	overlay, err := Overlay(context.Background(), Input{Files: pkg, Root: ".", Config: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	if len(overlay) != 2 || !strings.Contains(string(overlay["config/defaults.yaml"]), "replicas: 5") {
		t.Fatalf("overlay should rewrite config/defaults.yaml in place: %v", overlayKeys(overlay))
	}
}
