package render

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/kustomize/kyaml/yaml"
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
		"resources:\n- cm.yaml\nx: &a [*a]\n",
		"resources:\n- cm.yaml\n" + laughs(6)[strings.Index(laughs(6), "data:"):],
		"resources:\n- cm.yaml\nx: " + strings.Repeat("[", 250) + strings.Repeat("]", 250) + "\n",
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

// FuzzScanYAML checks the YAML bounds on arbitrary input: scanYAML never
// panics, and a document it lets through expands (as kustomize reads it,
// aliases replaced) to no more nodes and no deeper than the bounds allow.
func FuzzScanYAML(f *testing.F) {
	for _, s := range []string{cm, laughs(3), laughs(9), mergeBomb(3), deepFlow(50), deepFlow(300), deepAlias(),
		"a: &a [*a]\n", "a: &a {b: *a}\n", "x: [\"]\" [\"]\" [\"]\" []]]]\n", "x: a[b[c[d]]]\n", "x: {a:[b:[c:[]]]}\n", "- - - - x\n", "? - - x\n: - - y\n", "x: [?[?[?[1]]]]\n", "- &x [1]\n- *x\n- [*x, *x]\n", "{{{", "*x\n", "a: &a 1\nb: *a\n---\nc: *a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if err := scanYAML("fuzz.yaml", []byte(doc)); err != nil {
			if !errors.Is(err, ErrYAMLLimit) || !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
				t.Fatalf("error %v: want ErrYAMLLimit naming the file", err)
			}
			return
		}
		nodes, err := readObjects([]byte(doc))
		if err != nil {
			return
		}
		own := strings.Count(doc, "") // an upper bound of the nodes of the text
		for _, n := range nodes {
			if size, depth := expandedSize(n.YNode(), 0); size > 2*own+YAMLAliasAllowance || depth > MaxYAMLDepth+1 {
				t.Fatalf("passed the scan but expands to %d nodes, %d deep", size, depth)
			}
		}
	})
}

// FuzzMayAlias checks mayAlias on arbitrary input: when it says a file
// holds no alias, no document of it that parses holds one.
func FuzzMayAlias(f *testing.F) {
	for _, s := range []string{"a: &x 1\nb: *x\n", "*x\n", "a: &x 1\nb: [c,*x]\n", "a: &x 1\nb: [\"c\":*x]\n", "a: &x 1\n--- *x\n",
		"a: &x 1\nb:\t*x\n", "\ufeff*x\n", "a: &x 1\nb: [x]*x\n", "a: &x 1\nb: \"q\"*x\n", "a: &x 1\nb: 'q'*x\n", "a: &x 1\nb: {c: d}*x\n",
		"a: &x 1\nb: &y*x\n", "a: &x 1\nb: !t*x\n", "pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\n", "a: &x 1\nb: {c:*x}\n", "- &x 1\n-*x\n", "a: &x 1\nb: [?*x]\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if mayAlias([]byte(doc)) {
			return
		}
		dec := yaml.NewDecoder(strings.NewReader(doc))
		for {
			var n yaml.Node
			if err := dec.Decode(&n); err != nil {
				return
			}
			if hasAlias(&n) {
				t.Fatalf("mayAlias said no alias, but a document decodes with one")
			}
		}
	})
}

// hasAlias reports whether the tree holds an alias node.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	return slices.ContainsFunc(n.Content, hasAlias)
}

// expandedSize counts the nodes and depth of a tree, following aliases
// (readObjects has replaced them; any left are followed here).
func expandedSize(n *yaml.Node, depth int) (size, deepest int) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	size, deepest = 1, depth
	for _, c := range n.Content {
		s, d := expandedSize(c, depth+1)
		size += s
		deepest = max(deepest, d)
		if size > 1<<30 {
			return size, deepest
		}
	}
	return size, deepest
}
