package deliver_test

import (
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
)

var update = flag.Bool("update", false, "rewrite testdata goldens")

// The cases: examples with values that only their root kustomization's
// replacements read (patchable), and values that enable a component whose
// own replacements read the config object (kustomize runs those before the
// root's patches: refused).
var gitopsCases = []struct {
	name, example, values string
	refused               bool
}{
	{"hello", "hello", "apiVersion: hello.addons.example.com/v1alpha1\nkind: HelloConfig\nspec:\n  message: hi from flux\n  replicas: 3\n", false},
	{"coredns-replicas", "coredns", "apiVersion: coredns.addons.addonpack.dev/v1alpha1\nkind: CoreDNSConfig\nspec:\n  replicas: 7\n  upstreams: [9.9.9.9]\n  clusterDomain: corp.internal\n", false},
	{"metrics-server", "metrics-server", "@config/custom.yaml", false},
	{"coredns-nodelocal", "coredns", "@config/custom.yaml", true},
}

func readCase(t *testing.T, example, values string) []byte {
	t.Helper()
	if file, ok := strings.CutPrefix(values, "@"); ok {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", example, file))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return []byte(values)
}

// TestGitOpsValuesEmulated builds every case the way Flux's
// kustomize-controller and Argo CD's repo-server would build the objects
// `render --for` emits, and compares with Render: byte-identical when
// GitOpsEdits accepts the values, different when it refuses them.
func TestGitOpsValuesEmulated(t *testing.T) {
	ctx := context.Background()
	for _, tc := range gitopsCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := consume.OpenDir(filepath.Join("..", "..", "examples", tc.example), archive.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			values := readCase(t, tc.example, tc.values)
			want, err := p.Render(ctx, values, "values.yaml")
			if err != nil {
				t.Fatal(err)
			}
			edits, err := p.GitOpsEdits(ctx, values, "values.yaml")
			if tc.refused {
				if !errors.Is(err, deliver.ErrNotPatchable) || !strings.Contains(err.Error(), "@@") {
					t.Fatalf("want ErrNotPatchable with a diff, got %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			g := deliver.GitOps{Ref: pinned(t, tc.example), Addon: p.Addon, Edits: edits}
			fluxObjs, err := deliver.Flux(g)
			if err != nil {
				t.Fatal(err)
			}
			argoObjs, err := deliver.ArgoCD(g)
			if err != nil {
				t.Fatal(err)
			}
			root := p.Addon.KustomizeRoot()
			if tc.refused {
				// The controllers would really build something else than
				// what the user asked for: that is why it is refused.
				if got := fluxBuild(t, p.Files, root, fluxObjs); string(got) == string(want) {
					t.Error("refused, yet Flux would build the same as render")
				}
				if got := argoBuild(t, p.Files, root, argoObjs); string(got) == string(want) {
					t.Error("refused, yet Argo CD would build the same as render")
				}
				return
			}
			golden(t, tc.name+"-flux.yaml", fluxObjs)
			golden(t, tc.name+"-argocd.yaml", argoObjs)
			if got := fluxBuild(t, p.Files, root, fluxObjs); string(got) != string(want) {
				d, _ := deliver.Diff(want, got, "render", "flux")
				t.Errorf("Flux builds something else than render:\n%s", d)
			}
			if got := argoBuild(t, p.Files, root, argoObjs); string(got) != string(want) {
				d, _ := deliver.Diff(want, got, "render", "argocd")
				t.Errorf("Argo CD builds something else than render:\n%s", d)
			}
		})
	}
}

func pinned(t *testing.T, name string) registry.Reference {
	ref, err := registry.ParseReference("registry.example:5000/addons/" + name + "@sha256:" + strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", "gitops", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the golden (go test -update):\n%s", name, got)
	}
}

// object returns the one document of kind in a YAML stream.
func object(t *testing.T, stream []byte, kind string) map[string]any {
	t.Helper()
	for _, doc := range strings.Split(string(stream), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		if m["kind"] == kind {
			return m
		}
	}
	t.Fatalf("no %s in:\n%s", kind, stream)
	return nil
}

// memTree copies the package into an in-memory file system under /src.
func memTree(t *testing.T, files fs.FS) filesys.FileSystem {
	t.Helper()
	mem := filesys.MakeFsInMemory()
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		return mem.WriteFile(path.Join("/src", p), b)
	})
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

func kustomizationFile(t *testing.T, mem filesys.FileSystem, dir string) string {
	t.Helper()
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if f := path.Join(dir, n); mem.Exists(f) {
			return f
		}
	}
	t.Fatalf("no kustomization in %s", dir)
	return ""
}

// fluxBuild does what kustomize-controller does with the Kustomization of
// objs (fluxcd/pkg kustomize.Generator.GenerateManifest, then SecureBuild):
// the root kustomization decoded into kustomize's typed Kustomization,
// spec.patches and spec.components appended, encoded again, and built with
// load restrictions off and only builtin plugins.
func fluxBuild(t *testing.T, files fs.FS, root string, objs []byte) []byte {
	t.Helper()
	spec, _ := object(t, objs, "Kustomization")["spec"].(map[string]any)
	mem := memTree(t, files)
	dir := path.Join("/src", root)
	kfile := kustomizationFile(t, mem, dir)
	data, err := mem.ReadFile(kfile)
	if err != nil {
		t.Fatal(err)
	}
	kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
	if err := yaml.Unmarshal(data, &kus); err != nil {
		t.Fatal(err)
	}
	patches, _ := spec["patches"].([]any)
	for _, raw := range patches {
		p := raw.(map[string]any)
		kp := kustypes.Patch{Patch: p["patch"].(string)}
		if tgt, ok := p["target"].(map[string]any); ok {
			kp.Target = selector(tgt)
		}
		kus.Patches = append(kus.Patches, kp)
	}
	comps, _ := spec["components"].([]any)
	for _, c := range comps {
		kus.Components = append(kus.Components, c.(string))
	}
	out, err := yaml.Marshal(kus)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.WriteFile(kfile, out); err != nil {
		t.Fatal(err)
	}
	// Flux sets no Reorder: kustomize then leaves the objects in the order
	// it accumulated them, and Flux applies them in an order of its own
	// (by kind). The same objects are compared in kustomize's legacy
	// order, the one `kustomize build` and addonpack render use.
	return kbuild(t, mem, dir, &krusty.Options{LoadRestrictions: kustypes.LoadRestrictionsNone, PluginConfig: kustypes.DisabledPluginConfig()}, true)
}

// argoBuild does what Argo CD's repo-server does with the Application's
// source.kustomize (util/kustomize Build): patches appended to the
// kustomization's "patches" decoded as a generic map, then `kustomize edit
// add component` for the components (appended unless listed), then
// `kustomize build` with its default load restrictions.
func argoBuild(t *testing.T, files fs.FS, root string, objs []byte) []byte {
	t.Helper()
	spec, _ := object(t, objs, "Application")["spec"].(map[string]any)
	src, _ := spec["source"].(map[string]any)
	opts, _ := src["kustomize"].(map[string]any)
	mem := memTree(t, files)
	dir := path.Join("/src", root)
	kfile := kustomizationFile(t, mem, dir)
	if patches, ok := opts["patches"].([]any); ok && len(patches) > 0 {
		data, err := mem.ReadFile(kfile)
		if err != nil {
			t.Fatal(err)
		}
		var kMap map[string]any
		if err := yaml.Unmarshal(data, &kMap); err != nil {
			t.Fatal(err)
		}
		if existing, ok := kMap["patches"].([]any); ok {
			kMap["patches"] = append(existing, patches...)
		} else {
			kMap["patches"] = patches
		}
		out, err := yaml.Marshal(kMap)
		if err != nil {
			t.Fatal(err)
		}
		if err := mem.WriteFile(kfile, out); err != nil {
			t.Fatal(err)
		}
	}
	if comps, ok := opts["components"].([]any); ok && len(comps) > 0 {
		data, err := mem.ReadFile(kfile)
		if err != nil {
			t.Fatal(err)
		}
		var kus kustypes.Kustomization
		if err := yaml.Unmarshal(data, &kus); err != nil {
			t.Fatal(err)
		}
		for _, c := range comps {
			if !slices.Contains(kus.Components, c.(string)) {
				kus.Components = append(kus.Components, c.(string))
			}
		}
		out, err := yaml.Marshal(kus)
		if err != nil {
			t.Fatal(err)
		}
		if err := mem.WriteFile(kfile, out); err != nil {
			t.Fatal(err)
		}
	}
	// The kustomize CLI's defaults: root-only loads, legacy output order.
	return kbuild(t, mem, dir, &krusty.Options{LoadRestrictions: kustypes.LoadRestrictionsRootOnly, PluginConfig: kustypes.DisabledPluginConfig(), Reorder: krusty.ReorderOptionUnspecified}, false)
}

func selector(m map[string]any) *kustypes.Selector {
	s := &kustypes.Selector{}
	str := func(k string) string { v, _ := m[k].(string); return v }
	s.Gvk.Group, s.Gvk.Version, s.Gvk.Kind = str("group"), str("version"), str("kind")
	s.Name, s.Namespace = str("name"), str("namespace")
	s.LabelSelector, s.AnnotationSelector = str("labelSelector"), str("annotationSelector")
	return s
}

func kbuild(t *testing.T, mem filesys.FileSystem, dir string, opts *krusty.Options, sortLegacy bool) []byte {
	t.Helper()
	m, err := krusty.MakeKustomizer(opts).Run(mem, dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	if sortLegacy {
		// Kustomize's legacy sort is internal to it: let it sort the
		// objects as the only resource of a kustomization with sortOptions.
		sorted := filesys.MakeFsInMemory()
		if err := sorted.WriteFile("/sort/objects.yaml", out); err != nil {
			t.Fatal(err)
		}
		k := "resources: [objects.yaml]\nsortOptions:\n  order: legacy\n"
		if err := sorted.WriteFile("/sort/kustomization.yaml", []byte(k)); err != nil {
			t.Fatal(err)
		}
		return kbuild(t, sorted, "/sort", opts, false)
	}
	return out
}

// TestGitOpsValuesNoPackedConfig: a package whose root kustomization does
// not list its defaults gives a patch nothing to set: refused up front.
func TestGitOpsValuesNoPackedConfig(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "examples", "hello")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "kustomization.yaml" {
			b = []byte(strings.Replace(string(b), "  - config/defaults.yaml\n", "", 1))
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := consume.OpenDir(dir, archive.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.GitOpsEdits(context.Background(), []byte(gitopsCases[0].values), "v.yaml")
	if !errors.Is(err, deliver.ErrNotPatchable) || !strings.Contains(err.Error(), "lists no HelloConfig object") {
		t.Fatalf("got %v", err)
	}
}
