package render

import (
	"context"
	"strings"
	"testing"
)

// TestPlainEquivalent: a wired build is the plain one only when the config
// object is, field for field and type for type, the defaults the package
// lists (annotation included) and nothing else is wired in. Every true
// answer is cross-checked: the plain build and the wired one give the same
// output.
func TestPlainEquivalent(t *testing.T) {
	const kust = "resources: [deploy.yaml, config/defaults.yaml]\nreplacements:\n- source: {kind: HelloConfig, fieldPath: spec.replicas}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [spec.replicas]\n"
	const deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: hello}\nspec: {replicas: 1}\n"
	const defaults = "# the packed defaults\napiVersion: hello.example.com/v1alpha1\nkind: HelloConfig\nmetadata:\n  name: hello\n  annotations: {config.kubernetes.io/local-config: \"true\"}\nspec:\n  replicas: 2\n  level: info\n"
	pkg := func(kustomization, defaultsYAML string) Input {
		return Input{Root: ".", Files: files("kustomization.yaml", kustomization, "deploy.yaml", deploy, "config/defaults.yaml", defaultsYAML,
			"extra/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n")}
	}
	// What config.Type.Resolve writes: keys sorted, no annotation.
	resolved := "apiVersion: hello.example.com/v1alpha1\nkind: HelloConfig\nmetadata:\n  name: hello\nspec:\n  level: info\n  replicas: 2\n"
	tests := []struct {
		name string
		in   Input
		want bool
	}{
		{"nothing wired in", pkg(kust, defaults), true},
		{"the listed defaults, keys reordered, comment dropped", with(pkg(kust, defaults), resolved), true},
		{"the same, in flow style with quoting", with(pkg(kust, defaults), "{apiVersion: 'hello.example.com/v1alpha1', kind: HelloConfig, metadata: {name: \"hello\"}, spec: {replicas: 2, level: 'info'}}"), true},
		{"a value differs", with(pkg(kust, defaults), strings.Replace(resolved, "replicas: 2", "replicas: 3", 1)), false},
		{"a type differs (string \"2\" for 2)", with(pkg(kust, defaults), strings.Replace(resolved, "replicas: 2", "replicas: \"2\"", 1)), false},
		{"a field the packed defaults leave to the schema", with(pkg(kust, defaults), resolved+"  extra: true\n"), false},
		{"a field the wired object lacks", with(pkg(kust, defaults), strings.Replace(resolved, "  level: info\n", "", 1)), false},
		{"defaults not listed", with(pkg("resources: [deploy.yaml]\n", defaults), resolved), false},
		{"defaults not annotated local-config", with(pkg(kust, strings.Replace(defaults, "  annotations: {config.kubernetes.io/local-config: \"true\"}\n", "", 1)), resolved), false},
		{"defaults annotated with another value", with(pkg(kust, strings.Replace(defaults, `"true"`, `"yes"`, 1)), resolved), false},
		{"defaults with an extra label", with(pkg(kust, strings.Replace(defaults, "  name: hello\n", "  name: hello\n  labels: {a: b}\n", 1)), resolved), false},
		{"defaults with an anchor", with(pkg(kust, strings.Replace(defaults, "  level: info\n", "  level: &l info\n  copy: *l\n", 1)), resolved), false},
		{"a component wired in", func() Input { in := pkg(kust, defaults); in.Components = []string{"extra"}; return in }(), false},
		{"an image wired in", func() Input { in := pkg(kust, defaults); in.Images = []Image{{Name: "a", NewName: "b"}}; return in }(), false},
		{"a patch wired in", func() Input {
			in := pkg(kust, defaults)
			in.Patches = []Patch{{Patch: "[{op: add, path: /metadata/labels, value: {a: b}}]", Target: &Selector{Kind: "Deployment"}}}
			return in
		}(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlainEquivalent(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("PlainEquivalent = %v, want %v", got, tt.want)
			}
			if !got {
				return
			}
			wired, err := Build(context.Background(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := Build(context.Background(), Input{Files: tt.in.Files, Root: tt.in.Root})
			if err != nil {
				t.Fatal(err)
			}
			if string(wired) != string(plain) {
				t.Fatalf("said equivalent, but the builds differ:\n%s\n---- plain:\n%s", wired, plain)
			}
		})
	}
}

// with returns in with config as its config object.
func with(in Input, config string) Input {
	in.Config = []byte(config)
	return in
}
