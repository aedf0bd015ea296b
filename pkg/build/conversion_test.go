package build

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/spec"
)

// greeterSource writes a v1alpha2 source whose config type went from
// v1alpha1 (spec.message) to v1beta1 (spec.greeting.text). rules are the
// YAML lines of the step's rules; extra files are added as given.
func greeterSource(t *testing.T, rules string, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write := writer(t, dir)
	write("addon.yaml", strings.Replace(greeterAddon, "RULES\n", rules, 1))
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

// greeterAddon is the addon.yaml of greeterSource; RULES stands for the rules.
const greeterAddon = `apiVersion: addonpack.dev/v1alpha2
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
RULES
      tests:
        - input: tests/old.yaml
          output: tests/old.expected.yaml
`

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

// TestConversionRefusals: what the builder refuses (specs/config.md
// section 9.6), each naming the field or file at fault.
func TestConversionRefusals(t *testing.T) {
	labels8 := "apiVersion: greeter.addons.example.com/v1alpha1\nkind: GreeterConfig\nspec:\n  message: hi\n  labels: {a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7', h: '8'}\n"
	tests := []struct {
		name, rules string
		extra       map[string]string
		want        []string
	}{
		{"chain not reaching the current version", moveRule, map[string]string{"addon.yaml": strings.NewReplacer("          to: greeter.addons.example.com/v1beta1", "          to: greeter.addons.example.com/v1beta2", "RULES\n", moveRule).Replace(greeterAddon)},
			[]string{`spec.config.conversion.versions[0].to: is "greeter.addons.example.com/v1beta2", want "greeter.addons.example.com/v1beta1"`}},
		{"older schema does not compile", moveRule, map[string]string{"config/v1alpha1.yaml": "type: object\nproperties:\n  message: {type: strin}\n"},
			[]string{"spec.config.conversion: schema of greeter.addons.example.com/v1alpha1:", "config/v1alpha1.yaml"}},
		{"CEL does not compile", moveRule + "            - set: {path: greeting.text, expression: \"spec.greeting.text +\"}\n", nil,
			[]string{"addon.yaml: spec.config.conversion.versions[0].rules[1].set.expression: conversion failed: CEL expression \"spec.greeting.text +\" does not compile"}},
		{"CEL may exceed the cost limit", moveRule + "            - if: \"spec.labels.all(a, spec.labels.all(b, spec.labels.all(c, a + b + c != '')))\"\n              delete: {path: labels}\n", nil,
			[]string{"rules[1].if: conversion failed: CEL expression", "more than the limit of 10000000"}},
		{"test vector output differs", moveRule, map[string]string{"tests/old.expected.yaml": "apiVersion: greeter.addons.example.com/v1beta1\nkind: GreeterConfig\nspec:\n  greeting: {text: hello}\n"},
			[]string{`spec.config.conversion.tests[0]: tests/old.yaml converts to spec {"greeting":{"text":"hi"}}, but tests/old.expected.yaml says {"greeting":{"text":"hello"}}`}},
		{"test vector fails", moveRule + "            - fail: {message: \"message was removed\"}\n", nil,
			[]string{"spec.config.conversion.tests[0]: tests/old.yaml: conversion failed: cannot convert v1alpha1 → v1beta1: message was removed"}},
		{"converted test output does not validate", moveRule, map[string]string{
			"tests/old.yaml":          "apiVersion: greeter.addons.example.com/v1alpha1\nkind: GreeterConfig\nspec:\n  message: ''\n",
			"tests/old.expected.yaml": "apiVersion: greeter.addons.example.com/v1beta1\nkind: GreeterConfig\nspec:\n  greeting: {text: ''}\n"},
			[]string{"spec.config.conversion.tests[0]: tests/old.expected.yaml (converted): does not validate against config/schema.yaml:", "spec.greeting.text: must be at least 1 character long"}},
		{"converted defaults do not validate", moveRule, map[string]string{"config/v1alpha1.yaml": "type: object\nproperties:\n  message: {type: string, default: ''}\n  labels: {type: object}\n"},
			[]string{"spec.config.conversion.versions[0]: config/v1alpha1.yaml (its defaults) (converted): does not validate", "spec.greeting.text: must be at least 1 character long"}},
		{"nondeterministic rules", moveRule + "            - set: {path: args, expression: \"spec.labels.map(k, k)\"}\n            - delete: {path: labels}\n", map[string]string{
			"tests/old.yaml":          labels8,
			"tests/old.expected.yaml": "apiVersion: greeter.addons.example.com/v1beta1\nkind: GreeterConfig\nspec:\n  greeting: {text: hi}\n  args: [a, b, c, d, e, f, g, h]\n"},
			[]string{"spec.config.conversion.tests[0]: tests/old.yaml: conversion failed: converting it twice gave different results", "sort a list built from a map"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := greeterSource(t, tt.rules, tt.extra)
			_, err := Build(context.Background(), dir, memory.New(), Options{})
			if err == nil {
				t.Fatal("built")
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error\n%v\ndoes not contain %q", msg, w)
				}
			}
			if !errors.Is(err, errdef.ErrInvalid) {
				t.Errorf("%v is not ErrInvalid (exit 3)", err)
			}
		})
	}
	// The sorted version of the same rule builds.
	dir := greeterSource(t, moveRule+"            - if: has(spec.labels)\n              set: {path: args, expression: \"spec.labels.map(k, k).sort()\"}\n            - delete: {path: labels}\n", map[string]string{
		"tests/old.yaml":          labels8,
		"tests/old.expected.yaml": "apiVersion: greeter.addons.example.com/v1beta1\nkind: GreeterConfig\nspec:\n  greeting: {text: hi}\n  args: [a, b, c, d, e, f, g, h]\n"})
	if _, err := Build(context.Background(), dir, memory.New(), Options{}); err != nil {
		t.Fatal(err)
	}
}
