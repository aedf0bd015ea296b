package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	var raw struct {
		Addon  json.RawMessage `json:"addon"`
		Schema json.RawMessage `json:"schema"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, &FieldError{File: file, Msg: "not a config blob: " + err.Error()}
	}
	if dec.More() {
		return nil, &FieldError{File: file, Msg: "not a config blob: trailing data"}
	}
	if len(raw.Addon) == 0 {
		return nil, &FieldError{File: file, Field: "addon", Msg: "is missing"}
	}
	a, err := ParseAddon(raw.Addon, file+" addon")
	if err != nil {
		return nil, err
	}
	cb := &ConfigBlob{Addon: *a}
	if len(raw.Schema) > 0 && !bytes.Equal(raw.Schema, []byte("null")) {
		var obj map[string]any
		if err := json.Unmarshal(raw.Schema, &obj); err != nil {
			return nil, &FieldError{File: file, Field: "schema", Msg: "must be a JSON object: " + err.Error()}
		}
		cb.Schema = raw.Schema
	}
	if (a.Spec.Config == nil) != (cb.Schema == nil) {
		return nil, &FieldError{File: file, Field: "schema", Msg: "must be present exactly when addon.spec.config is"}
	}
	return cb, nil
}
