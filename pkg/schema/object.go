package schema

import (
	"fmt"
	"strings"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Object is a component-config object as users write it.
type Object struct {
	APIVersion, Kind string
	Metadata         map[string]any
	Spec             any
}

// ParseObject decodes one YAML or JSON config object strictly (name is the file
// name used in errors): exactly one document; apiVersion, kind and spec
// required; no top-level fields besides apiVersion, kind, metadata and spec; and
// apiVersion and kind must equal wantAPIVersion and wantKind. Spec holds
// JSON-compatible values as returned by Decode.
func ParseObject(data []byte, name, wantAPIVersion, wantKind string) (*Object, error) {
	obj, err := parseObject(data, name, wantAPIVersion, wantKind, false)
	if err != nil {
		return nil, objectError{err}
	}
	return obj, nil
}

// ParseObjectAnyVersion is ParseObject for a config type that reads several
// versions: apiVersion must be a string, of any value, which the caller
// checks (wantAPIVersion, the current version, is named when it is missing).
func ParseObjectAnyVersion(data []byte, name, wantAPIVersion, wantKind string) (*Object, error) {
	obj, err := parseObject(data, name, wantAPIVersion, wantKind, true)
	if err != nil {
		return nil, objectError{err}
	}
	return obj, nil
}

// ErrObject is matched by every error of ParseObject.
var ErrObject = errdef.New(errdef.ErrInvalid, "invalid config object")

type objectError struct{ err error }

func (e objectError) Error() string   { return e.err.Error() }
func (e objectError) Unwrap() []error { return []error{e.err, ErrObject} }

func parseObject(data []byte, name, wantAPIVersion, wantKind string, anyVersion bool) (*Object, error) {
	v, err := Decode(data, name)
	if err != nil {
		return nil, err
	}
	fields, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: config must be an object with apiVersion, kind and spec, got %s", name, typeName(v))
	}
	var unknown []string
	for _, k := range sortedKeys(fields) {
		switch k {
		case "apiVersion", "kind", "metadata", "spec":
		default:
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s: unknown top-level field(s) %s: want only apiVersion, kind, metadata and spec",
			name, strings.Join(unknown, ", "))
	}
	obj := &Object{Spec: fields["spec"]}
	if obj.APIVersion, err = stringField(fields, "apiVersion", wantAPIVersion, anyVersion); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if obj.Kind, err = stringField(fields, "kind", wantKind, false); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if md, found := fields["metadata"]; found && md != nil {
		if obj.Metadata, ok = md.(map[string]any); !ok {
			return nil, fmt.Errorf("%s: metadata must be an object, got %s", name, typeName(md))
		}
	}
	if spec, found := fields["spec"]; !found || spec == nil {
		return nil, fmt.Errorf("%s: spec is required", name)
	}
	return obj, nil
}

func stringField(fields map[string]any, field, want string, anyValue bool) (string, error) {
	v, found := fields[field]
	if !found || v == nil {
		return "", fmt.Errorf("%s is required (want %q)", field, want)
	}
	got, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string, got %s", field, typeName(v))
	}
	if got != want && !anyValue {
		return "", fmt.Errorf("%s: got %q, want %q", field, got, want)
	}
	return got, nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}
