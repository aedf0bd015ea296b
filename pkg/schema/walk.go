package schema

import (
	"fmt"
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
	for _, kw := range sortedKeys(obj) {
		kwPtr := ptr + "/" + escapePtr(kw)
		switch kw {
		case "additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties",
			"contains", "propertyNames", "not", "if", "then", "else", "contentSchema",
			"items", "allOf", "anyOf", "oneOf", "prefixItems":
			if err := walkSchemaOrList(obj[kw], kwPtr, fn); err != nil {
				return err
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			m, _ := obj[kw].(map[string]any)
			for _, name := range sortedKeys(m) {
				if err := walkSchemas(m[name], kwPtr+"/"+escapePtr(name), fn); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// walkSchemaOrList walks a keyword value that is one schema or a list of them
// ("items" may be either in draft-07).
func walkSchemaOrList(v any, ptr string, fn func(obj map[string]any, ptr string) error) error {
	list, ok := v.([]any)
	if !ok {
		return walkSchemas(v, ptr, fn)
	}
	for i, sub := range list {
		if err := walkSchemas(sub, ptr+"/"+strconv.Itoa(i), fn); err != nil {
			return err
		}
	}
	return nil
}

func escapePtr(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

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
