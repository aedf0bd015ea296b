package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/addonpack/addonpack/pkg/errdef"
)

var (
	// ErrExternalRef is wrapped by Compile errors for a reference (or metaschema)
	// outside the schema document.
	ErrExternalRef = errdef.New(errdef.ErrInvalid, "external reference refused")
	// ErrLimit is wrapped by Compile errors for a document over its Limits.
	ErrLimit = errdef.New(errdef.ErrInvalid, "schema exceeds limits")
)

// rootURL is the URL the document is registered under. Nothing is ever loaded
// from it; fragment references resolve against it.
const rootURL = "file:///addonpack/schema.json"

// Limits bounds what Compile accepts. Zero or negative fields take the default.
type Limits struct {
	MaxBytes int // schema document size; default 1 MiB
	MaxDepth int // nesting depth of the schema document (maps/arrays); default 32 — compile time grows steeply with depth
	// MaxSchemas bounds the number of (sub)schema objects; default 10000.
	// jsonschema/v6 compiles in time quadratic in this number (its work queue is
	// searched linearly): about 1 s for 10000 on one core, 10-20 s for the
	// ~35000 that fit in 1 MiB.
	MaxSchemas int
}

// DefaultLimits returns 1 MiB, depth 32 and 10000 schemas.
func DefaultLimits() Limits {
	return Limits{MaxBytes: 1 << 20, MaxDepth: 32, MaxSchemas: 10000}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxSchemas <= 0 {
		l.MaxSchemas = d.MaxSchemas
	}
	return l
}

// Schema is a compiled component-config schema. It is safe for concurrent use.
type Schema struct {
	doc       map[string]any     // the document as written (numbers canonical)
	compiled  *jsonschema.Schema // compiled from a copy with OpenAPI keywords rewritten
	canonical []byte
}

// Compile parses data (YAML or JSON; name is the file name used in errors, e.g.
// "config/schema.yaml") and compiles it as the schema of a config object's spec.
// See the package documentation for the dialect accepted.
func Compile(data []byte, name string, limits Limits) (*Schema, error) {
	s, err := compile(data, name, limits)
	if err != nil {
		return nil, schemaError{err}
	}
	return s, nil
}

// ErrSchema is matched by every error of Compile: the schema document itself
// is unusable.
var ErrSchema = errdef.New(errdef.ErrInvalid, "invalid schema")

type schemaError struct{ err error }

func (e schemaError) Error() string   { return e.err.Error() }
func (e schemaError) Unwrap() []error { return []error{e.err, ErrSchema} }

func compile(data []byte, name string, limits Limits) (*Schema, error) {
	limits = limits.withDefaults()
	if len(data) > limits.MaxBytes {
		return nil, fmt.Errorf("%s: schema is %d bytes, limit is %d: %w", name, len(data), limits.MaxBytes, ErrLimit)
	}
	v, err := Decode(data, name)
	if err != nil {
		return nil, err
	}
	if d := depth(v, limits.MaxDepth); d > limits.MaxDepth {
		return nil, fmt.Errorf("%s: schema nesting depth exceeds %d: %w", name, limits.MaxDepth, ErrLimit)
	}
	doc, ok := v.(map[string]any)
	if !ok || doc["type"] != "object" {
		return nil, fmt.Errorf("%s: the top level of the schema must describe an object (type: object)", name)
	}
	if err := checkDraft(doc["$schema"]); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	work := deepCopy(doc)
	count := 0
	err = walkSchemas(work, "", func(obj map[string]any, ptr string) error {
		if count++; count > limits.MaxSchemas {
			return fmt.Errorf("schema has more than %d subschemas: %w", limits.MaxSchemas, ErrLimit)
		}
		if err := checkRefs(obj, ptr); err != nil {
			return err
		}
		return rewriteNullable(obj, ptr)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkCost(work.(map[string]any)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat() // known formats are checked; unknown ones are never looked up
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(rootURL, work); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	compiled, err := c.Compile(rootURL)
	if err != nil {
		var le *jsonschema.LoadURLError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%s: %w: %q", name, ErrExternalRef, le.URL)
		}
		msg := strings.ReplaceAll(err.Error(), rootURL, "schema")
		var se *jsonschema.SchemaValidationError
		var ve *jsonschema.ValidationError
		if errors.As(err, &se) && errors.As(se.Err, &ve) {
			msg = "not valid against the JSON Schema metaschema:"
			for _, fe := range flatten(ve, jsonPointer, false) {
				msg += "\n  " + fe.String()
			}
		}
		return nil, &compileError{msg: fmt.Sprintf("%s: invalid schema: %s", name, msg), err: err}
	}
	canonical, err := canonicalJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Schema{doc: doc, compiled: compiled, canonical: canonical}, nil
}

func jsonPointer(loc []string) string {
	ptr := ""
	for _, tok := range loc {
		ptr += "/" + escapePtr(tok)
	}
	return pointerOrRoot(ptr)
}

// compileError reports a jsonschema compile error with the internal root URL
// replaced by "schema", and unwraps to the jsonschema error.
type compileError struct {
	msg string
	err error
}

func (e *compileError) Error() string { return e.msg }
func (e *compileError) Unwrap() error { return e.err }

// checkDraft accepts no "$schema" or one naming draft-07, 2019-09 or 2020-12.
func checkDraft(v any) error {
	if v == nil {
		return nil
	}
	s, _ := v.(string)
	u := strings.TrimSuffix(s, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	switch u {
	case "json-schema.org/draft-07/schema", "json-schema.org/draft/2019-09/schema", "json-schema.org/draft/2020-12/schema":
		return nil
	}
	return fmt.Errorf("unsupported $schema %q: want draft-07, draft/2019-09 or draft/2020-12", s)
}

// refuseLoader refuses every URL. The draft metaschemas are embedded in
// jsonschema/v6 and never reach a loader.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%w: %q", ErrExternalRef, url)
}

// JSON returns the schema document as canonical JSON: sorted keys, no
// insignificant whitespace, canonical numbers, no HTML escaping. The same schema
// written in YAML or JSON, with keys in any order, gives the same bytes.
func (s *Schema) JSON() []byte {
	return bytes.Clone(s.canonical)
}

func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding schema as JSON: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
