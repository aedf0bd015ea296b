package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// ConfigBlob is the artifact's config blob (media type ConfigMediaType): the
// resolved addon.yaml, and the component-config schema so that a consumer can
// read the config type without fetching the content layer.
type ConfigBlob struct {
	Addon Addon `json:"addon"`
	// Schema is the canonical JSON of the schema of the config object's
	// spec; absent when the add-on declares no config type.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// ParseConfigBlob decodes and checks a config blob; file names it in errors.
func ParseConfigBlob(data []byte, file string) (*ConfigBlob, error) {
	if len(data) > MaxDocumentSize {
		return nil, &FieldError{File: file, Msg: fmt.Sprintf("is %d bytes, more than the limit of %d", len(data), MaxDocumentSize)}
	}
	raw, err := members(data, "addon", "schema")
	if err != nil {
		return nil, &FieldError{File: file, Msg: "not a config blob: " + err.Error()}
	}
	if len(raw["addon"]) == 0 {
		return nil, &FieldError{File: file, Field: "addon", Msg: "is missing"}
	}
	a, err := ParseAddon(raw["addon"], file+" addon")
	if err != nil {
		return nil, err
	}
	cb := &ConfigBlob{Addon: *a}
	if schema := raw["schema"]; len(schema) > 0 && !bytes.Equal(schema, []byte("null")) {
		var obj map[string]any
		if err := json.Unmarshal(schema, &obj); err != nil {
			return nil, &FieldError{File: file, Field: "schema", Msg: "must be a JSON object: " + err.Error()}
		}
		cb.Schema = schema
	}
	if (a.Spec.Config == nil) != (cb.Schema == nil) {
		return nil, &FieldError{File: file, Field: "schema", Msg: "must be present exactly when addon.spec.config is"}
	}
	return cb, nil
}

// members reads one JSON object whose member names must be among allowed,
// matched exactly (Go's decoder would fold case) and not repeated, with
// nothing after it.
func members(data []byte, allowed ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		if !slices.Contains(allowed, name) {
			return nil, fmt.Errorf("unknown member %q", name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("member %q repeated", name)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out[name] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the object")
	}
	return out, nil
}
