package policyexport_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// crdSchemas compiles the openAPIV3Schema of each served version of the
// CRD in testdata/crds/file (see its README) as JSON Schema, keyed by
// apiVersion: objects that list properties and neither preserve unknown
// fields nor give additionalProperties get additionalProperties false (the
// API server prunes, or with strict field validation refuses, unknown
// fields: an export that wrote one would lose it).
func crdSchemas(t *testing.T, file string) map[string]*jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "crds", file))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(file, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var crd struct {
		Spec struct {
			Group    string
			Versions []struct {
				Name   string
				Served bool
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := map[string]*jsonschema.Schema{}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		s := v.Schema.OpenAPIV3Schema
		// The API server always allows apiVersion, kind and metadata at
		// the root, whether the CRD lists them or not.
		props, _ := s["properties"].(map[string]any)
		for k, typ := range map[string]string{"apiVersion": "string", "kind": "string", "metadata": "object"} {
			if _, ok := props[k]; !ok && props != nil {
				props[k] = map[string]any{"type": typ}
			}
		}
		structural(s)
		b, _ := json.Marshal(s)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		url := "mem://" + file + "/" + v.Name
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			t.Fatalf("%s %s: %v", file, v.Name, err)
		}
		out[crd.Spec.Group+"/"+v.Name] = sch
	}
	if len(out) == 0 {
		t.Fatalf("%s: no served version", file)
	}
	return out
}

// structural closes the objects of an OpenAPI v3 (structural) schema and
// drops its Kubernetes extensions and nullable, which JSON Schema lacks.
func structural(n any) {
	switch n := n.(type) {
	case map[string]any:
		_, props := n["properties"]
		_, addl := n["additionalProperties"]
		preserve, _ := n["x-kubernetes-preserve-unknown-fields"].(bool)
		if props && !addl && !preserve {
			n["additionalProperties"] = false
		}
		for k := range n {
			if strings.HasPrefix(k, "x-kubernetes-") || k == "nullable" {
				delete(n, k)
			}
		}
		for k, v := range n {
			if k == "properties" {
				for _, p := range v.(map[string]any) {
					structural(p)
				}
				continue
			}
			structural(v)
		}
	case []any:
		for _, v := range n {
			structural(v)
		}
	}
}

// TestGoldensMatchConsumerCRDs validates every object of a consumer's kind
// in the goldens against that consumer's own CRD (and proves the check
// bites: a misspelt field fails).
func TestGoldensMatchConsumerCRDs(t *testing.T) {
	schemas := map[string]map[string]*jsonschema.Schema{
		"OCIRepository":      crdSchemas(t, "source.toolkit.fluxcd.io_ocirepositories.yaml"),
		"ClusterPolicy":      crdSchemas(t, "kyverno.io_clusterpolicies.yaml.gz"),
		"ClusterImagePolicy": crdSchemas(t, "policy-controller_clusterimagepolicy.yaml"),
		"TrustRoot":          crdSchemas(t, "policy-controller_trustroot.yaml"),
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.yaml"))
	checked := map[string]int{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range strings.Split(string(raw), "\n---\n") {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(d), &obj); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			kind, _ := obj["kind"].(string)
			byVersion, ok := schemas[kind]
			if !ok {
				continue
			}
			if strings.Contains(f, "fragment") { // a patch of spec.verify: give it what a whole object has
				spec := obj["spec"].(map[string]any)
				spec["url"], spec["interval"] = "oci://registry.example.com/addons/hello", "10m"
			}
			sch, ok := byVersion[obj["apiVersion"].(string)]
			if !ok {
				t.Errorf("%s: %s %s: no such served version in the CRD", f, kind, obj["apiVersion"])
				continue
			}
			if err := validate(sch, obj); err != nil {
				t.Errorf("%s: %s does not match its CRD: %v", f, kind, err)
			}
			checked[kind]++
			// The check bites: an unknown field is refused.
			spec := obj["spec"].(map[string]any)
			spec["verifyy"] = true
			if validate(sch, obj) == nil {
				t.Errorf("%s: the %s schema accepts an unknown field", f, kind)
			}
		}
	}
	for kind := range schemas {
		if checked[kind] == 0 {
			t.Errorf("no golden holds a %s", kind)
		}
	}
}

func validate(sch *jsonschema.Schema, obj map[string]any) error {
	b, _ := json.Marshal(obj)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}
