package build

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/spec"
)

// greeterSource writes a v1alpha2 source whose config type went from
// v1alpha1 (spec.message) to v1beta1 (spec.greeting.text). rules are the
// YAML lines of the step's rules; extra files are added as given.
func greeterSource(t *testing.T, rules string, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write := writer(t, dir)
	write("addon.yaml", `apiVersion: addonpack.dev/v1alpha2
kind: Addon
metadata:
  name: greeter
spec:
  version: 0.2.0
  description: greeter
  config:
    apiVersion: greeter.addons.example.com/v1beta1
    kind: GreeterConfig
    schema: config/schema.yaml
    defaults: config/defaults.yaml
    conversion:
      versions:
        - apiVersion: greeter.addons.example.com/v1alpha1
          schema: config/v1alpha1.yaml
          to: greeter.addons.example.com/v1beta1
          rules:
`+rules+`
      tests:
        - input: tests/old.yaml
          output: tests/old.expected.yaml
`)
	write("kustomization.yaml", "resources: [cm.yaml, config/defaults.yaml]\nreplacements:\n- source: {kind: GreeterConfig, fieldPath: spec.greeting.text}\n  targets:\n  - select: {kind: ConfigMap}\n    fieldPaths: [data.text]\n")
	write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: greeting}\ndata: {text: x}\n")
	write("config/schema.yaml", "type: object\nrequired: [greeting]\nproperties:\n  greeting:\n    type: object\n    required: [text]\n    properties:\n      text: {type: string, minLength: 1, default: hello}\n    additionalProperties: false\n  labels: {type: object, additionalProperties: {type: string}}\n  args:\n    type: array\n    items: {type: string}\nadditionalProperties: false\n")
	write("config/defaults.yaml", "apiVersion: greeter.addons.example.com/v1beta1\nkind: GreeterConfig\nmetadata:\n  name: greeter\n  annotations: {config.kubernetes.io/local-config: \"true\"}\nspec:\n  greeting: {text: hello}\n")
	write("config/v1alpha1.yaml", "type: object\nproperties:\n  message: {type: string, default: hello}\n  labels: {type: object, additionalProperties: {type: string}}\nadditionalProperties: false\n")
	write("tests/old.yaml", "apiVersion: greeter.addons.example.com/v1alpha1\nkind: GreeterConfig\nspec:\n  message: hi\n")
	write("tests/old.expected.yaml", "apiVersion: greeter.addons.example.com/v1beta1\nkind: GreeterConfig\nspec:\n  greeting: {text: hi}\n")
	for name, data := range extra {
		write(name, data)
	}
	return dir
}

const moveRule = "            - move: {from: message, to: greeting.text}\n"

func TestBuildV1Alpha2(t *testing.T) {
	store := memory.New()
	res, err := Build(context.Background(), greeterSource(t, moveRule, nil), store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := content.FetchAll(context.Background(), store, res.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	a, err := spec.ParseManifest(raw, "greeter")
	if err != nil {
		t.Fatal(err)
	}
	if a.Config.MediaType != spec.ConfigMediaTypeV2 {
		t.Fatalf("config media type %q", a.Config.MediaType)
	}
	blobJSON, err := content.FetchAll(context.Background(), store, a.Config)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := spec.ParseConfigBlob(blobJSON, "greeter config")
	if err != nil {
		t.Fatal(err)
	}
	old := cb.Conversion.Schemas["greeter.addons.example.com/v1alpha1"]
	if want := `{"additionalProperties":false,"properties":{"labels":{"additionalProperties":{"type":"string"},"type":"object"},"message":{"default":"hello","type":"string"}},"type":"object"}`; string(old) != want {
		t.Errorf("older schema in the blob:\n%s\nwant\n%s", old, want)
	}
	if !strings.Contains(string(blobJSON), `"rules":[{"move":{"from":"message","to":"greeting.text"}}]`) {
		t.Errorf("rules not in the addon member: %s", blobJSON)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(blobJSON, &members); err != nil || len(members) != 3 {
		t.Errorf("members %v: %v", members, err)
	}
}
