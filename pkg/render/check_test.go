package render

import (
	"context"
	"slices"
	"strings"
	"testing"

	sigyaml "sigs.k8s.io/yaml"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestCheckAgreesWithBuild runs Check and Build on the same inputs: Check
// must fail exactly when Build fails, and return Images(Build(...)).
func TestCheckAgreesWithBuild(t *testing.T) {
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: a, image: \"example.com/a:1\"}\n"
	tests := []struct {
		name    string
		files   map[string]string
		wantErr bool
	}{
		{name: "plain", files: map[string]string{"kustomization.yaml": "resources: [d.yaml]\nimages:\n- {name: example.com/a, newTag: \"2\"}\n", "d.yaml": deploy}},
		{name: "anchors and aliases", files: map[string]string{"kustomization.yaml": "resources: [d.yaml]\n",
			"d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - &c {name: a, image: \"example.com/anchored:1\"}\n      initContainers:\n      - *c\n"}},
		{name: "merge key", files: map[string]string{"kustomization.yaml": "resources: [d.yaml]\n",
			"d.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n  base: &b {x: \"1\"}\n  more:\n    <<: *b\n"}},
		{name: "integer key", files: map[string]string{"kustomization.yaml": "resources: [m.yaml]\n",
			"m.yaml": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  ports:\n    80: http\n"}, wantErr: true},
		{name: "timestamp and binary", files: map[string]string{"kustomization.yaml": "resources: [m.yaml]\n",
			"m.yaml": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  when: 2024-01-02\n  blob: !!binary aGVsbG8=\n"}},
		{name: "infinity", files: map[string]string{"kustomization.yaml": "resources: [m.yaml]\n",
			"m.yaml": "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  max: .inf\n"}, wantErr: true},
		{name: "broken resource", files: map[string]string{"kustomization.yaml": "resources: [missing.yaml]\n"}, wantErr: true},
		// goyaml.v2, which re-reads kustomize's JSON, wants a key within
		// 1,024 bytes: a long key, or one that escaping makes long.
		{name: "long key", files: map[string]string{"kustomization.yaml": "resources: [m.yaml]\n",
			"m.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n  ? " + strings.Repeat("a", 1100) + "\n  : x\n"}, wantErr: true},
		{name: "key long once escaped", files: map[string]string{"kustomization.yaml": "resources: [m.yaml]\n",
			"m.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n  \"" + strings.Repeat("<", 200) + "\": x\n"}, wantErr: true},
		// yaml.v3 limits block and flow nesting separately; the JSON is all
		// flow, and goyaml.v2 stops at 10,000 levels.
		{name: "deep", files: map[string]string{"kustomization.yaml": "resources: [m.yaml]\n", "m.yaml": deepDoc()}, wantErr: true},
		// An unquoted number as an image comes out normalised (1.0 → 1).
		{name: "numeric images", files: map[string]string{"kustomization.yaml": "resources: [p.yaml]\n",
			"p.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: 1.0}\n  - {name: b, image: 0x10}\n  - {name: c, image: True}\n  - {name: d, image: 1_000}\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := files()
			for k, v := range tt.files {
				fsys[k] = files(k, v)[k]
			}
			in := Input{Files: fsys, Root: "."}
			out, berr := Build(context.Background(), in)
			got, cerr := Check(context.Background(), in)
			if (berr != nil) != (cerr != nil) {
				t.Fatalf("Build error %v, Check error %v: they must agree", berr, cerr)
			}
			if tt.wantErr != (cerr != nil) {
				t.Fatalf("Check error = %v, want error %v", cerr, tt.wantErr)
			}
			if cerr != nil {
				if !strings.HasPrefix(cerr.Error(), "kustomize build ./: ") {
					t.Errorf("error %q does not name the root", cerr)
				}
				return
			}
			want, err := Images(out)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Check images = %q, Images(Build) = %q", got, want)
			}
		})
	}
}

// deepDoc nests 100 block levels over 9,950 flow levels.
func deepDoc() string {
	var b strings.Builder
	b.WriteString("apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n")
	ind := "  "
	for range 100 {
		b.WriteString(ind + "a:\n")
		ind += "  "
	}
	b.WriteString(ind + "x: " + strings.Repeat("[", 9950) + "1" + strings.Repeat("]", 9950) + "\n")
	return b.String()
}

// TestCheckCoreDNS compares Check with Build on the test add-on with config
// and components.
func TestCheckCoreDNS(t *testing.T) {
	in := Input{Files: mapFSOf(t, corednsDir, ""), Root: ".", Config: readConfig(t)}
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Images(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Check(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("Check images = %q, Images(Build) = %q", got, want)
	}
}

// FuzzPlainJSON checks the claim Check relies on: when plainJSON accepts a
// tree, kustomize's encoding (RNode.MarshalJSON, then JSON to YAML) succeeds
// and the images read from the tree are the images read from the encoding.
func FuzzPlainJSON(f *testing.F) {
	for _, s := range []string{
		"a: 1\nb: [x, 2.5, true, null]\n",
		"spec:\n  containers:\n  - {name: a, image: b}\n",
		"a: &x {b: 1}\nc: *x\n",
		"a: {<<: {b: 1}}\n",
		"1: a\n",
		"a: .inf\nb: -.Inf\nc: .nan\n",
		"a: 1e400\nb: 0x10\nc: 0o17\nd: 1_000\n",
		"a: !!binary aGVsbG8=\n",
		"a: 2024-01-02\n",
		"a: !custom x\n",
		"a: !!str 1\nb: !!int \"2\"\n",
		"? [a]\n: b\n",
		"spec:\n  containers:\n  - {name: a, image: 1.0}\n",
		"a:\n  \"" + strings.Repeat("<", 200) + "\": x\n",
		"a: " + strings.Repeat("[", 1200) + "1" + strings.Repeat("]", 1200) + "\n",
		"a: \"\\xff\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		rn, err := yaml.Parse(doc)
		if err != nil || rn.YNode().Kind != yaml.MappingNode {
			return
		}
		if !plainJSON(rn.YNode()) {
			return
		}
		seen := map[string]bool{}
		collectImages(rn.YNode(), seen)
		js, err := rn.MarshalJSON()
		if err != nil {
			t.Fatalf("plainJSON accepted %q, but MarshalJSON fails: %v", doc, err)
		}
		out, err := sigyaml.JSONToYAML(js)
		if err != nil {
			t.Fatalf("plainJSON accepted %q, but JSONToYAML fails: %v", doc, err)
		}
		want, err := Images(out)
		if err != nil {
			t.Fatalf("plainJSON accepted %q, but its encoding does not parse: %v", doc, err)
		}
		got := make([]string, 0, len(seen))
		for img := range seen {
			got = append(got, img)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("images from the tree %q, from the encoding %q (input %q)", got, want, doc)
		}
	})
}
