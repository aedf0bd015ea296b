package render

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.yaml from Build's output")

func TestBuildGolden(t *testing.T) {
	base := []string{
		"ServiceAccount/coredns",
		"ClusterRole/system:coredns",
		"ClusterRoleBinding/system:coredns",
		"ConfigMap/coredns",
		"Service/kube-dns",
		"Deployment/coredns",
	}
	tests := []struct {
		name       string
		components []string
		objects    []string
		contains   []string
	}{
		{
			name:    "coredns",
			objects: base,
		},
		{
			name:       "coredns-nodelocal",
			components: []string{"components/nodelocal"},
			objects:    append(slices.Clone(base), "DaemonSet/node-local-dns"),
			contains:   []string{"value: 169.254.99.1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := buildFast(t, Input{Files: os.DirFS(corednsDir), Root: ".", Config: readConfig(t), Components: tt.components})
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", tt.name+".yaml")
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("output differs from %s (run with -update to refresh):\n%s", golden, out)
			}
			if got := objects(t, out); !slices.Equal(got, tt.objects) {
				t.Errorf("objects = %v, want %v", got, tt.objects)
			}
			s := string(out)
			// The config object is local config: read by the
			// replacements, absent from the output.
			for _, absent := range []string{"CoreDNSConfig", "coredns.addons.example.com", "local-config", configFileBase} {
				if strings.Contains(s, absent) {
					t.Errorf("output contains %q", absent)
				}
			}
			// Values replaced from the config object.
			for _, present := range append([]string{
				"replicas: 3",
				"image: registry.k8s.io/coredns/coredns:v1.11.3",
				"clusterDomain: cluster.example",
				"clusterIP: 10.96.0.53",
				"namespace: kube-system",
			}, tt.contains...) {
				if !strings.Contains(s, present) {
					t.Errorf("output lacks %q", present)
				}
			}
			for _, replaced := range []string{"replicas: 1", "coredns:v1.11.1", "clusterDomain: cluster.local", "10.96.0.10", "169.254.20.10"} {
				if strings.Contains(s, replaced) {
					t.Errorf("output still contains the package default %q", replaced)
				}
			}
		})
	}
}

func TestBuildWithoutConfigFailsOnReplacement(t *testing.T) {
	_, err := buildFast(t, Input{Files: os.DirFS(corednsDir), Root: "."})
	if err == nil {
		t.Fatal("Build without the config object succeeded; the add-on's replacements need it")
	}
	for _, want := range []string{"kustomize build ./: ", "nothing selected by CoreDNSConfig"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestBuildConfigAnnotationOverridden(t *testing.T) {
	cfg := bytes.Replace(readConfig(t), []byte("  name: coredns\n"),
		[]byte("  name: coredns\n  annotations:\n    config.kubernetes.io/local-config: \"false\"\n"), 1)
	if bytes.Equal(cfg, readConfig(t)) {
		t.Fatal("test setup: annotation not added")
	}
	out, err := buildFast(t, Input{Files: os.DirFS(corednsDir), Root: ".", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "CoreDNSConfig") {
		t.Error("config object with local-config \"false\" leaked into the output")
	}
}

func TestBuildSubdirRootAndNameClash(t *testing.T) {
	m := mapFSOf(t, corednsDir, "addons/coredns")
	// A package file with the name Build would pick for the config object.
	m["addons/coredns/"+configFileBase+".yaml"] = &fstest.MapFile{Data: []byte("not: a resource\n")}
	before := fmt.Sprint(m)
	out, err := buildFast(t, Input{Files: m, Root: "addons/coredns/", Config: readConfig(t),
		Components: []string{"components/nodelocal", "./components/nodelocal/"}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/golden/coredns-nodelocal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("output differs from golden coredns-nodelocal.yaml:\n%s", out)
	}
	if after := fmt.Sprint(m); after != before {
		t.Error("Build modified Input.Files")
	}
	_, err = buildFast(t, Input{Files: m, Root: "addons/coredns"})
	if err == nil || !strings.HasPrefix(err.Error(), "kustomize build addons/coredns/: ") {
		t.Errorf("error = %v, want prefix %q", err, "kustomize build addons/coredns/: ")
	}
}

func TestBuildComponentAlreadyListed(t *testing.T) {
	m := mapFSOf(t, corednsDir, "")
	k := string(m["kustomization.yaml"].Data) + "components:\n- components/nodelocal\n"
	m["kustomization.yaml"] = &fstest.MapFile{Data: []byte(k)}
	out, err := buildFast(t, Input{Files: m, Root: ".", Config: readConfig(t), Components: []string{"components/nodelocal"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "kind: DaemonSet"); n != 1 {
		t.Errorf("%d DaemonSets, want 1", n)
	}
}

func TestBuildDeterministic(t *testing.T) {
	cfg := readConfig(t)
	comps := []string{"components/nodelocal"}
	inputs := map[string]Input{
		"DirFS":        {Files: os.DirFS(corednsDir), Root: ".", Config: cfg, Components: comps},
		"MapFS":        {Files: mapFSOf(t, corednsDir, ""), Root: ".", Config: cfg, Components: comps},
		"MapFS-subdir": {Files: mapFSOf(t, corednsDir, "pkg/x"), Root: "pkg/x", Config: cfg, Components: comps},
	}
	var first []byte
	for _, name := range []string{"DirFS", "DirFS", "MapFS", "MapFS-subdir", "DirFS"} {
		out, err := buildFast(t, inputs[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if first == nil {
			first = out
		} else if !bytes.Equal(out, first) {
			t.Errorf("%s: output differs from the first build:\n%s", name, out)
		}
	}
}

func TestBuildConcurrent(t *testing.T) {
	cfg := readConfig(t)
	want := map[bool][]byte{}
	for _, withComp := range []bool{false, true} {
		name := "coredns"
		if withComp {
			name = "coredns-nodelocal"
		}
		b, err := os.ReadFile(filepath.Join("testdata", "golden", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		want[withComp] = b
	}
	mfs := mapFSOf(t, corednsDir, "")
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 {
				withComp := (g+i)%2 == 0
				in := Input{Files: mfs, Root: ".", Config: cfg}
				if g%2 == 0 {
					in.Files = os.DirFS(corednsDir)
				}
				if withComp {
					in.Components = []string{"components/nodelocal"}
				}
				out, err := Build(context.Background(), in)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(out, want[withComp]) {
					errs <- fmt.Errorf("goroutine %d build %d: output differs from golden", g, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestBuildOpenAPIStateRestored(t *testing.T) {
	before := openapi.GetSchemaVersion()
	m := files(
		"kustomization.yaml", "openapi:\n  path: schema.json\nresources:\n- cm.yaml\n",
		"schema.json", `{"definitions": {}}`,
		"cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n",
	)
	if _, err := buildFast(t, Input{Files: m, Root: "."}); err != nil {
		t.Fatal(err)
	}
	if after := openapi.GetSchemaVersion(); after != before {
		t.Errorf("openapi schema after Build = %q, want %q (global state leaked)", after, before)
	}
}

func TestBuildCaseInsensitiveFields(t *testing.T) {
	// Kustomize decodes kustomization.yaml as JSON, matching field names
	// case-insensitively; the injected config must join "Resources".
	m := mapFSOf(t, corednsDir, "")
	k := strings.Replace(string(m["kustomization.yaml"].Data), "\nresources:", "\nResources:", 1)
	m["kustomization.yaml"] = &fstest.MapFile{Data: []byte(k)}
	out, err := buildFast(t, Input{Files: m, Root: ".", Config: readConfig(t)})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/golden/coredns.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("output differs from golden coredns.yaml:\n%s", out)
	}
}

func TestBuildConfigNotVisibleInBases(t *testing.T) {
	// A base is built on its own before the root merges it, so its
	// replacements cannot read the config object injected into the root.
	m := mapFSOf(t, corednsDir, "base")
	m["kustomization.yaml"] = &fstest.MapFile{Data: []byte("resources:\n- base\n")}
	_, err := buildFast(t, Input{Files: m, Root: ".", Config: readConfig(t)})
	if err == nil || !strings.Contains(err.Error(), "nothing selected by CoreDNSConfig") {
		t.Errorf("error = %v, want the base's replacements to find no CoreDNSConfig", err)
	}
}

// TestBuildConcurrentWithCustomOpenAPI: builds that set the openapi field
// run alone; builds on the default schema run together around them and
// never see a custom schema. The custom schema here makes a patch merge a
// custom resource's list by "id" (the use the openapi field exists for);
// with the default schema the patch replaces the list, so a leaked schema
// would change the default builds' output.
func TestBuildConcurrentWithCustomOpenAPI(t *testing.T) {
	thing := "apiVersion: example.io/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  items:\n  - {id: a, v: \"1\"}\n  - {id: b, v: \"1\"}\n"
	patch := "apiVersion: example.io/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n  items:\n  - {id: b, v: \"2\"}\n"
	schema := `{"definitions": {"io.example.v1.Thing": {"type": "object",
	  "x-kubernetes-group-version-kind": [{"group": "example.io", "kind": "Thing", "version": "v1"}],
	  "properties": {"spec": {"type": "object", "properties": {"items": {"type": "array",
	    "x-kubernetes-patch-merge-key": "id", "x-kubernetes-patch-strategy": "merge",
	    "items": {"type": "object", "properties": {"id": {"type": "string"}, "v": {"type": "string"}}}}}}}}}}`
	plain := files("kustomization.yaml", "resources: [t.yaml]\npatches:\n- path: p.yaml\n", "t.yaml", thing, "p.yaml", patch)
	custom := files("kustomization.yaml", "openapi:\n  path: schema.json\nresources: [t.yaml]\npatches:\n- path: p.yaml\n",
		"schema.json", schema, "t.yaml", thing, "p.yaml", patch)
	want := map[bool][]byte{}
	for _, c := range []bool{false, true} {
		in := Input{Files: plain, Root: "."}
		if c {
			in.Files = custom
		}
		out, err := Build(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		want[c] = out
	}
	if bytes.Equal(want[false], want[true]) || !bytes.Contains(want[true], []byte("id: a")) {
		t.Fatalf("the schemas must render differently for this test to mean anything:\n%s\n---\n%s", want[false], want[true])
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				c := (g+i)%4 == 0
				in := Input{Files: plain, Root: "."}
				if c {
					in.Files = custom
				}
				out, err := Build(context.Background(), in)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(out, want[c]) {
					errs <- fmt.Errorf("goroutine %d build %d (custom schema %v): output differs:\n%s", g, i, c, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
