package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// MaxDocumentSize caps addon.yaml and the config blob (1 MiB).
const MaxDocumentSize = 1 << 20

// ParseAddon decodes and validates addon.yaml. file names the document in
// errors ("addon.yaml", "registry.example/x@sha256:… config"). The returned
// error is an Errors listing every problem found, each naming the field.
func ParseAddon(data []byte, file string) (*Addon, error) {
	doc, err := decodeDocument(data, file)
	if err != nil {
		return nil, err
	}
	if errs := validateAgainstSchema(doc, file, sourceVersion(doc)); len(errs) > 0 {
		for _, e := range errs {
			if e.Field == "apiVersion" {
				e.Msg = "must be " + APIVersion + " or " + APIVersionV1Alpha2
			}
		}
		return nil, errs
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, &FieldError{File: file, Msg: err.Error()}
	}
	var a Addon
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		// The schema forbids unknown fields, so this is a bug guard.
		return nil, &FieldError{File: file, Msg: err.Error()}
	}
	if err := a.check(file); err != nil {
		return nil, err
	}
	return &a, nil
}

// sourceVersion picks the schema doc is validated against: its own
// apiVersion when this version reads it, else the first one (whose error
// then names the versions read).
func sourceVersion(doc any) string {
	if m, ok := doc.(map[string]any); ok && m["apiVersion"] == APIVersionV1Alpha2 {
		return APIVersionV1Alpha2
	}
	return APIVersion
}

// decodeDocument turns one YAML or JSON document into JSON values (numbers as
// json.Number), refusing duplicate keys, multiple documents and oversize input.
func decodeDocument(data []byte, file string) (any, error) {
	if len(data) > MaxDocumentSize {
		return nil, &FieldError{File: file, Msg: fmt.Sprintf("document is %d bytes, more than the limit of %d", len(data), MaxDocumentSize)}
	}
	if n, err := CountDocuments(data); err != nil {
		return nil, &FieldError{File: file, Msg: "not valid YAML: " + err.Error()}
	} else if n != 1 {
		return nil, &FieldError{File: file, Msg: fmt.Sprintf("must hold exactly one YAML document, found %d", n)}
	}
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, &FieldError{File: file, Msg: "not valid YAML: " + err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &FieldError{File: file, Msg: "not valid YAML: " + err.Error()}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, &FieldError{File: file, Msg: "must be a YAML mapping"}
	}
	return v, nil
}

// CountDocuments counts the YAML documents of data: a reader that takes one
// document refuses more, since the JSON conversion would drop the rest
// silently (addon.yaml; a Mirror file).
func CountDocuments(data []byte) (int, error) {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		var node yamlv3.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}
