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
	// Conversion carries what converting a user's object needs besides
	// addon.spec.config.conversion; only in a ConfigMediaTypeV2 blob, and
	// exactly when that field is set.
	Conversion *ConversionBlob `json:"conversion,omitempty"`
}

// ConversionBlob is the "conversion" member of a ConfigMediaTypeV2 blob.
type ConversionBlob struct {
	// Schemas maps each older config apiVersion of
	// addon.spec.config.conversion.versions to the canonical JSON of its
	// schema (specs/artifact.md section 4).
	Schemas map[string]json.RawMessage `json:"schemas"`
}

// MediaType is the config media type of the blob: ConfigMediaTypeV2 for an
// addonpack.dev/v1alpha2 add-on, ConfigMediaType otherwise.
func (cb *ConfigBlob) MediaType() string {
	if cb.Addon.APIVersion == APIVersionV1Alpha2 {
		return ConfigMediaTypeV2
	}
	return ConfigMediaType
}

// ParseConfigBlob decodes and checks a config blob; file names it in errors.
func ParseConfigBlob(data []byte, file string) (*ConfigBlob, error) {
	if len(data) > MaxDocumentSize {
		return nil, &FieldError{File: file, Msg: fmt.Sprintf("is %d bytes, more than the limit of %d", len(data), MaxDocumentSize)}
	}
	raw, err := members(data, "addon", "schema", "conversion")
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
	if err := parseConversionMember(cb, raw["conversion"], file); err != nil {
		return nil, err
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

// parseConversionMember checks the "conversion" member: present exactly when
// addon.spec.config.conversion is (which only addonpack.dev/v1alpha2 has),
// with one schema object for each older version and no other.
func parseConversionMember(cb *ConfigBlob, raw json.RawMessage, file string) error {
	bad := func(format string, args ...any) error {
		return &FieldError{File: file, Field: "conversion", Msg: fmt.Sprintf(format, args...)}
	}
	if len(raw) > 0 && cb.Addon.APIVersion != APIVersionV1Alpha2 {
		return &FieldError{File: file, Msg: fmt.Sprintf("not a config blob: unknown member %q", "conversion")}
	}
	var conv *Conversion
	if c := cb.Addon.Spec.Config; c != nil {
		conv = c.Conversion
	}
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		if conv != nil {
			return bad("must be present exactly when addon.spec.config.conversion is")
		}
		return nil
	}
	if conv == nil {
		return bad("must be present exactly when addon.spec.config.conversion is")
	}
	sub, err := members(raw, "schemas")
	if err != nil {
		return bad("%v", err)
	}
	var schemas map[string]json.RawMessage
	if err := json.Unmarshal(sub["schemas"], &schemas); err != nil || schemas == nil {
		return bad("schemas: must be an object mapping each older config apiVersion to its schema")
	}
	for _, v := range conv.Versions {
		var obj map[string]any
		if err := json.Unmarshal(schemas[v.APIVersion], &obj); err != nil || obj == nil {
			return bad("schemas: %q: must be a JSON object, the schema of addon.spec.config.conversion's version", v.APIVersion)
		}
	}
	if len(schemas) != len(conv.Versions) {
		return bad("schemas: must hold exactly the versions of addon.spec.config.conversion.versions")
	}
	cb.Conversion = &ConversionBlob{Schemas: schemas}
	return nil
}
