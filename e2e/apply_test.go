//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

const fieldManager = "addonpack-e2e"

// stages splits rendered YAML in the order the API server can admit it:
// CustomResourceDefinitions first (their custom resources have no REST
// mapping until they are Established), then the objects, then admission
// webhook configurations and APIServices. Those last ones point at Services
// whose Pods never run here (no kubelet): a webhook configuration applied
// before the add-on's other objects would make the API server call a
// backend that is not there for them, and fail them.
type stages struct {
	crds, objects, last []map[string]any
}

func split(t *testing.T, rendered string) stages {
	t.Helper()
	var s stages
	dec := yaml.NewDecoder(bytes.NewReader([]byte(rendered)))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("rendered YAML: %v", err)
		}
		if doc == nil {
			continue
		}
		switch doc["kind"] {
		case "CustomResourceDefinition":
			s.crds = append(s.crds, doc)
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService":
			s.last = append(s.last, doc)
		default:
			s.objects = append(s.objects, doc)
		}
	}
	return s
}

func (s stages) all() []map[string]any {
	return append(append(append([]map[string]any{}, s.crds...), s.objects...), s.last...)
}

// list encodes objects as one v1 List, which kubectl reads from stdin.
func list(t *testing.T, items []map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// applyStaged applies server-side as manager, stage by stage, waiting for
// every CRD to be Established before the objects, and returns each object's
// resourceVersion.
func (e *env) applyStaged(t *testing.T, manager string, s stages) map[string]string {
	t.Helper()
	versions := map[string]string{}
	for i, stage := range [][]map[string]any{s.crds, s.objects, s.last} {
		if len(stage) == 0 {
			continue
		}
		out := e.mustKubectl(t, list(t, stage), "apply", "--server-side", "--field-manager", manager, "-o", "json", "-f", "-")
		for k, v := range resourceVersions(t, out) {
			versions[k] = v
		}
		if i == 0 {
			for _, crd := range stage {
				name := crd["metadata"].(map[string]any)["name"].(string)
				e.waitEstablished(t, name)
			}
		}
	}
	return versions
}

// current reads every object's resourceVersion as the API server has it now.
func (e *env) current(t *testing.T, s stages) map[string]string {
	t.Helper()
	return resourceVersions(t, e.mustKubectl(t, list(t, s.all()), "get", "-o", "json", "-f", "-"))
}

// resourceVersions maps "Kind namespace/name" to resourceVersion for kubectl's
// JSON output (one object or a List).
func resourceVersions(t *testing.T, out string) map[string]string {
	t.Helper()
	var obj struct {
		Kind     string            `json:"kind"`
		Metadata objectMeta        `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("kubectl output: %v\n%s", err, out)
	}
	m := map[string]string{}
	if obj.Kind != "List" {
		m[obj.Kind+" "+obj.Metadata.Namespace+"/"+obj.Metadata.Name] = obj.Metadata.ResourceVersion
		return m
	}
	for _, item := range obj.Items {
		for k, v := range resourceVersions(t, string(item)) {
			m[k] = v
		}
	}
	return m
}

type objectMeta struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace"`
	ResourceVersion string `json:"resourceVersion"`
}

// writeTemp writes data to a file in the test's work directory.
func (e *env) writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(e.work, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func describe(s stages) string {
	return fmt.Sprintf("%d CRDs, %d objects, %d webhook configurations/APIServices", len(s.crds), len(s.objects), len(s.last))
}

// waitEstablished waits for the CRD name to be Established. (kubectl wait
// right after the CRD is created can fail before the API server has written
// its first status: "accessor error: <nil>".)
func (e *env) waitEstablished(t *testing.T, name string) {
	t.Helper()
	eventually(t, "CRD "+name+" Established", time.Minute, func() (bool, string) {
		out, err := e.kubectlRun(t, nil, "get", "crd", name, "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`)
		return err == nil && out == "True", fmt.Sprintf("Established=%q %v", out, err)
	})
}
