package config

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/addonpack/addonpack/pkg/spec"
)

// checkWhen makes sure each component's `when` names a boolean property of
// the schema, so that a typo cannot leave a component forever off.
func (t *Type) checkWhen() error {
	var doc map[string]any
	if err := json.Unmarshal(t.Schema.JSON(), &doc); err != nil {
		return err
	}
	for i, c := range t.Components {
		node := doc
		keys := strings.Split(c.When, ".")
		for j, key := range keys {
			props, _ := node["properties"].(map[string]any)
			next, ok := props[key].(map[string]any)
			if !ok {
				return &spec.FieldError{File: spec.FileName, Field: fmt.Sprintf("spec.config.components[%d].when", i),
					Msg: fmt.Sprintf("%q: %s has no property %q", c.When, t.SchemaFile, strings.Join(keys[:j+1], "."))}
			}
			node = next
		}
		if typ, _ := node["type"].(string); typ != "boolean" {
			return &spec.FieldError{File: spec.FileName, Field: fmt.Sprintf("spec.config.components[%d].when", i),
				Msg: fmt.Sprintf("%q: property in %s has type %v, want boolean", c.When, t.SchemaFile, node["type"])}
		}
	}
	return nil
}
