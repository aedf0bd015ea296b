package schema

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// walkSchemas calls fn for every schema object in the document rooted at node,
// with its JSON pointer, parents before children. It only descends through
// schema keywords (draft-07 to 2020-12), so data such as "default", "enum" or
// "example" values and x-* extensions are never visited.
func walkSchemas(node any, ptr string, fn func(obj map[string]any, ptr string) error) error {
	obj, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	if err := fn(obj, ptr); err != nil {
		return err
	}
	var err error
	eachSubschema(obj, func(rel string, sub map[string]any) {
		if err == nil {
			err = walkSchemas(sub, ptr+rel, fn)
		}
	})
	return err
}

// eachSubschema calls fn for every direct subschema of obj (an object under
// a schema keyword), in a fixed order, with its pointer relative to obj
// ("/properties/a", "/allOf/0").
func eachSubschema(obj map[string]any, fn func(rel string, sub map[string]any)) {
	call := func(rel string, v any) {
		if sub, ok := v.(map[string]any); ok {
			fn(rel, sub)
		}
	}
	for _, kw := range sortedKeys(obj) {
		kwPtr := "/" + escapePtr(kw)
		switch kw {
		case "additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties",
			"contains", "propertyNames", "not", "if", "then", "else", "contentSchema",
			"items", "allOf", "anyOf", "oneOf", "prefixItems":
			// one schema, or a list of them ("items" may be either in draft-07)
			if list, ok := obj[kw].([]any); ok {
				for i, sub := range list {
					call(kwPtr+"/"+strconv.Itoa(i), sub)
				}
			} else {
				call(kwPtr, obj[kw])
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			m, _ := obj[kw].(map[string]any)
			for _, name := range sortedKeys(m) {
				call(kwPtr+"/"+escapePtr(name), m[name])
			}
		}
	}
}

func escapePtr(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// checkRefs refuses every reference that is not a fragment of this document.
func checkRefs(obj map[string]any, ptr string) error {
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		ref, ok := obj[kw].(string)
		if ok && !strings.HasPrefix(ref, "#") {
			return fmt.Errorf("%w: %s %q at %s: only references within the document (\"#...\") are allowed",
				ErrExternalRef, kw, ref, pointerOrRoot(ptr))
		}
	}
	return nil
}

func pointerOrRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

// rewriteNullable turns OpenAPI v3 "nullable: true" into JSON Schema: "null" is
// added to "type" (and to "enum", as Kubernetes accepts null for a nullable
// field before checking enum).
func rewriteNullable(obj map[string]any, ptr string) error {
	nullable, present := obj["nullable"]
	if !present {
		return nil
	}
	b, ok := nullable.(bool)
	if !ok {
		return fmt.Errorf("%s: nullable must be a boolean, got %T", pointerOrRoot(ptr), nullable)
	}
	delete(obj, "nullable")
	if !b {
		return nil
	}
	switch t := obj["type"].(type) {
	case string:
		if t != "null" {
			obj["type"] = []any{t, "null"}
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			obj["type"] = append(slices.Clone(t), "null")
		}
	}
	if enum, ok := obj["enum"].([]any); ok && !slices.Contains(enum, nil) {
		obj["enum"] = append(slices.Clone(enum), nil)
	}
	return nil
}
