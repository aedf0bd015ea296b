package render

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// laughs is the classic alias bomb: level i is nine aliases of level i-1,
// so the last level expands to 9^levels strings.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  l0: &l0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [", i, i)
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// mergeBomb fans out through merge keys instead of sequences.
func mergeBomb(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge}\nx0: &x0 {a: 1, b: 2, c: 3, d: 4}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "x%d: &x%d {", i, i)
		for j := 0; j < 8; j++ {
			fmt.Fprintf(&b, "k%d: *x%d, ", j, i-1)
		}
		b.WriteString("<<: *x0}\n")
	}
	return b.String()
}

func deepFlow(n int) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: " + strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) + "\n"
}

func deepBlock(n int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n")
	for i := 1; i <= n; i++ {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	return b.String()
}

// deepAlias nests an anchor 150 levels deep, then uses it 150 levels deep:
// each half is within the bound, the expansion is not.
func deepAlias() string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\nx: &deep " + strings.Repeat("[", 150) + strings.Repeat("]", 150) +
		"\ny: " + strings.Repeat("[", 150) + "*deep" + strings.Repeat("]", 150) + "\n"
}

// TestBuildRefusesYAMLBombs: every shape of YAML bomb, wherever the render
// reads it (a resource, a second document, a patch, a base, the config
// object), is refused with ErrYAMLLimit naming the file, before kustomize
// expands it, and without holding much memory.
func TestBuildRefusesYAMLBombs(t *testing.T) {
	kust := "resources:\n- bomb.yaml\n"
	tests := []struct {
		name   string
		files  map[string]string
		config string
		want   string
	}{
		{"alias bomb", map[string]string{"bomb.yaml": laughs(9)}, "", "bomb.yaml: document 1: line 9: aliases expand"},
		{"alias bomb, 20 levels", map[string]string{"bomb.yaml": laughs(20)}, "", "bomb.yaml: document 1:"},
		{"merge key bomb", map[string]string{"bomb.yaml": mergeBomb(12)}, "", "bomb.yaml: document 1:"},
		{"bomb in the second document", map[string]string{"bomb.yaml": cm + "---\n" + laughs(9)}, "", "bomb.yaml: document 2:"},
		{"alias of its own anchor", map[string]string{"bomb.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: &c {a: *c}\n"}, "", "refers to its own anchor"},
		{"flow nesting 9000", map[string]string{"bomb.yaml": deepFlow(9000)}, "", "bomb.yaml: document 1: line 4: nested more than 200 levels deep"},
		{"flow nesting 201", map[string]string{"bomb.yaml": deepFlow(201)}, "", "nested more than 200 levels deep"},
		{"block nesting 2000", map[string]string{"bomb.yaml": deepBlock(2000)}, "", "nested more than 200 levels deep"},
		{"sequence nesting", map[string]string{"bomb.yaml": "x:\n" + strings.Repeat("- ", 500) + "x\n"}, "", "nested more than 200 levels deep"},
		{"nesting through an alias", map[string]string{"bomb.yaml": deepAlias()}, "", "alias *deep nests more than 200 levels deep"},
		{"too large", map[string]string{"bomb.yaml": cm + "# " + strings.Repeat("x", MaxYAMLFileSize) + "\n"}, "", "bomb.yaml: more than 16777216 bytes"},
		{"bomb in a patch", map[string]string{"bomb.yaml": cm, "kustomization.yaml": kust + "patches:\n- path: p.yaml\n", "p.yaml": strings.Replace(laughs(9), "name: bomb", "name: cm", 1)}, "", "p.yaml: document 1:"},
		{"bomb in a base", map[string]string{"bomb.yaml": cm, "kustomization.yaml": "resources: [bomb.yaml, base]\n", "base/kustomization.yaml": "resources: [b.yaml]\n", "base/b.yaml": laughs(9)}, "", "base/b.yaml: document 1:"},
		{"bomb in the kustomization", map[string]string{"bomb.yaml": cm, "kustomization.yaml": "resources: [bomb.yaml]\ncommonLabels: &l {a: b}\nx: [" + strings.Repeat("*l,", 20000) + "*l]\n"}, "", "kustomization.yaml: document 1:"},
		{"bomb in the config object", map[string]string{"bomb.yaml": cm}, strings.Replace(laughs(9), "kind: ConfigMap", "kind: FuzzConfig", 1), "config object: document 1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := map[string]string{"kustomization.yaml": kust}
			for k, v := range tt.files {
				m[k] = v
			}
			var kv []string
			for k, v := range m {
				kv = append(kv, k, v)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for _, run := range []func(context.Context, Input) error{
				func(ctx context.Context, in Input) error { _, err := Build(ctx, in); return err },
				func(ctx context.Context, in Input) error { _, err := Check(ctx, in); return err },
			} {
				err := run(context.Background(), Input{Files: files(kv...), Root: ".", Config: []byte(tt.config)})
				if !errors.Is(err, ErrYAMLLimit) {
					t.Fatalf("err = %v, want ErrYAMLLimit", err)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("err = %v, want it to contain %q", err, tt.want)
				}
			}
			runtime.ReadMemStats(&after)
			// The files themselves (up to 16 MiB, read twice) and the
			// scan; an expanded bomb would be gigabytes.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
				t.Errorf("allocated %d MiB refusing it", grew>>20)
			}
		})
	}
}

// TestBuildAcceptsYAMLWithinBounds: anchors and aliases of ordinary use,
// nesting up to the bound, and data files that merely contain '*' build.
func TestBuildAcceptsYAMLWithinBounds(t *testing.T) {
	shared := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata:\n  a: b\n"
	for i := 0; i < 50; i++ {
		shared += fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: s%d, labels: &l {app: x, tier: web}, annotations: {<<: *l, n: \"%d\"}}\ndata: *l\n", i, i)
	}
	deepOK := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\nx: " + strings.Repeat("[", MaxYAMLDepth-1) + strings.Repeat("]", MaxYAMLDepth-1) + "\n"
	in := Input{Root: ".", Files: files(
		"kustomization.yaml", "resources: [shared.yaml, deep.yaml]\nconfigMapGenerator:\n- name: g\n  files: [glob.txt]\n",
		"shared.yaml", shared,
		"deep.yaml", deepOK,
		"glob.txt", "*.yaml: &x [*x]\n"+strings.Repeat("{", 500),
	)}
	out, err := buildFast(t, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(objects(t, out)); got != 53 {
		t.Errorf("%d objects, want 53", got)
	}
}

func TestMayNest(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{cm, false},
		{"a: *b\n", true},
		{strings.Repeat("[", MaxYAMLDepth/2+1), true},
		{strings.Repeat(" ", MaxYAMLDepth/2+1) + "a: 1\n", true},
		{strings.Repeat("- ", MaxYAMLDepth/4+1) + "x\n", true},
		{strings.Repeat("a: b\n", 10000), false},
		// A '*' where a token may start could be an alias.
		{"*b\n", true},
		{"a:\t*b\n", true},
		{"a: [c,*b]\n", true},
		{"a: {\"c\":*b}\n", true},
		{"a: {c: [*b]}\n", true},
		{"a: |\n  x\n\u2028*b\n", true},
		{"a: [?*b]\n", true},
		// Inside a scalar it cannot: CRD patterns, globs, math.
		{"pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\n", false},
		{"pattern: '^(\\*|[a-z]+)$'\n", false},
		{"description: a.*b, 2*3, x**y\n", false},
		// Words and brackets in scalars do not nest; indentation and
		// flow brackets do.
		{"description: " + strings.Repeat("word ", 500) + "\n", false},
		{strings.Repeat("pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\n", 200), false},
		{"x: " + strings.Repeat("[", MaxYAMLDepth/2) + "\n", false},
		{"x: " + strings.Repeat("[\"]\",", MaxYAMLDepth/2+1) + "\n", true},
		{"x: " + strings.Repeat("{a: ", MaxYAMLDepth/2+1) + "\n", true},
		{"x: " + strings.Repeat("[?", MaxYAMLDepth/2+1) + "\n", true},
		{strings.Repeat("- ", MaxYAMLDepth/4) + strings.Repeat("? ", 2) + "x\n", true},
	} {
		if got := mayNest([]byte(tt.in)); got != tt.want {
			t.Errorf("mayNest(%.40q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestPackedConfigRefusesYAMLBombs: PackedConfig reads the root
// kustomization and its resources without kustomize; the same bounds hold.
func TestPackedConfigRefusesYAMLBombs(t *testing.T) {
	for name, m := range map[string][]string{
		"resource":      {"kustomization.yaml", "resources: [defaults.yaml]\n", "defaults.yaml", laughs(9)},
		"kustomization": {"kustomization.yaml", "resources: [defaults.yaml]\nx: " + deepFlow(300)[60:]},
	} {
		_, _, err := PackedConfig(files(m...), ".", "v1", "ConfigMap")
		if !errors.Is(err, ErrYAMLLimit) {
			t.Errorf("%s: err = %v, want ErrYAMLLimit", name, err)
		}
	}
}
