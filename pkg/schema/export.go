package schema

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// OpenAPI returns a canonical schema (as from JSON) as YAML, the form it
// takes inside a CRD's openAPIV3Schema.
func OpenAPI(canonical []byte) ([]byte, error) {
	return yaml.JSONToYAML(canonical)
}

// CRD returns a CustomResourceDefinition (apiextensions.k8s.io/v1) that
// serves the config type apiVersion/kind with the given schema as its spec,
// so an operator can serve the same config type. The schema must be
// self-contained (no $ref); JSON-Schema-only keywords that structural CRD
// schemas do not allow ($schema, $id, $defs, additionalProperties: false) are
// dropped.
func CRD(canonical []byte, apiVersion, kind string) ([]byte, error) {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok || group == "" || version == "" {
		return nil, fmt.Errorf("config apiVersion %q: want GROUP/VERSION", apiVersion)
	}
	var spec map[string]any
	if err := json.Unmarshal(canonical, &spec); err != nil {
		return nil, err
	}
	if err := structural(spec, "spec"); err != nil {
		return nil, err
	}
	plural := strings.ToLower(kind) + "s"
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group,
			"names": map[string]any{
				"kind":     kind,
				"listKind": kind + "List",
				"plural":   plural,
				"singular": strings.ToLower(kind),
			},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name":    version,
				"served":  true,
				"storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"apiVersion": map[string]any{"type": "string"},
						"kind":       map[string]any{"type": "string"},
						"metadata":   map[string]any{"type": "object"},
						"spec":       spec,
					},
					"required": []any{"spec"},
				}},
			}},
		},
	}
	return yaml.Marshal(crd)
}

// structural strips what CRD schemas refuse and rejects what cannot be
// expressed there.
func structural(node map[string]any, path string) error {
	for _, k := range []string{"$schema", "$id", "$defs", "definitions", "$comment"} {
		delete(node, k)
	}
	if _, ok := node["$ref"]; ok {
		return fmt.Errorf("%s: $ref cannot be exported to a CRD schema; inline the definition", path)
	}
	if ap, ok := node["additionalProperties"].(bool); ok && !ap {
		delete(node, "additionalProperties")
	}
	for key, v := range node {
		switch x := v.(type) {
		case map[string]any:
			if key == "properties" || key == "patternProperties" {
				for name, sub := range x {
					if m, ok := sub.(map[string]any); ok {
						if err := structural(m, path+"."+name); err != nil {
							return err
						}
					}
				}
				continue
			}
			if key == "default" || key == "example" || key == "enum" || key == "const" {
				continue
			}
			if err := structural(x, path); err != nil {
				return err
			}
		case []any:
			if key == "enum" || key == "required" || key == "default" || key == "example" {
				continue
			}
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					if err := structural(m, path); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
