package config_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// modeAddon reads v1alpha1 (mode fast|safe|legacy, message) and is at
// v1beta1 (mode fast|safe, text): its step renames message and leaves mode
// alone, so "legacy" was valid in the older version and is not now.
const modeAddon = `apiVersion: addonpack.dev/v1alpha2
kind: Addon
metadata: {name: modes}
spec:
  version: 0.2.0
  description: modes
  config:
    apiVersion: modes.example.com/v1beta1
    kind: ModeConfig
    schema: config/schema.yaml
    conversion:
      versions:
        - apiVersion: modes.example.com/v1alpha1
          schema: config/v1alpha1.yaml
          to: modes.example.com/v1beta1
          rules:
            - rename: {path: message, to: text}
`

// TestResolveConvertedValueNoLongerValid: an old values file holding an
// enum value the current version dropped is refused at render time naming
// the file, that it was converted, the field and the values allowed now.
func TestResolveConvertedValueNoLongerValid(t *testing.T) {
	a, err := spec.ParseAddon([]byte(modeAddon), "addon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{
		"config/schema.yaml":   {Data: []byte("type: object\nproperties:\n  mode: {type: string, enum: [fast, safe]}\n  text: {type: string}\nadditionalProperties: false\n")},
		"config/v1alpha1.yaml": {Data: []byte("type: object\nproperties:\n  mode: {type: string, enum: [fast, safe, legacy]}\n  message: {type: string}\nadditionalProperties: false\n")},
	}
	typ, err := config.Load(files, a, schema.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	old := "apiVersion: modes.example.com/v1alpha1\nkind: ModeConfig\nspec:\n  mode: legacy\n  message: hi\n"
	_, err = typ.Resolve([]byte(old), "my-values.yaml")
	want := "my-values.yaml (converted v1alpha1 → v1beta1): does not validate against config/schema.yaml:\nspec.mode: must be one of: \"fast\", \"safe\""
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("resolve: %v\nwant %s", err, want)
	}
	if r, err := typ.Resolve([]byte(strings.Replace(old, "legacy", "safe", 1)), "my-values.yaml"); err != nil || r.Spec.(map[string]any)["text"] != "hi" {
		t.Fatalf("a value still allowed: %v %v", r, err)
	}
}
