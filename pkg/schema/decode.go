package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v2"
)

// Decode decodes exactly one YAML or JSON document into JSON-compatible values:
// map[string]any, []any, string, json.Number, bool and nil. name (a file name)
// prefixes every error.
//
// YAML is read as the Kubernetes tooling reads it (YAML 1.1 via go.yaml.in/yaml/v2:
// unquoted yes/no are booleans), with duplicate keys refused. Non-string map keys
// (1, true) become strings. Empty documents ("---" alone) are ignored; two
// non-empty documents are an error. Numbers are json.Number in a canonical form:
// integral values up to 2^53 (and any int64/uint64) are written as integers, other
// numbers in Go's shortest 'g' form, so 1.0 and 1 decode alike. NaN and infinities
// are refused.
func Decode(data []byte, name string) (any, error) {
	v, err := decode(data, strings.HasSuffix(strings.ToLower(name), ".json"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

func decode(data []byte, jsonOnly bool) (any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if jsonOnly {
		if !json.Valid(trimmed) {
			var v any
			err := json.Unmarshal(trimmed, &v)
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		return decodeJSON(trimmed)
	}
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		return decodeJSON(trimmed)
	}
	return decodeYAML(data)
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return normalize(v)
}

func decodeYAML(data []byte) (any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.SetStrict(true)
	var doc any
	found := false
	for i := 1; ; i++ {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("invalid YAML: %w", err)
		}
		if v == nil {
			continue // empty document, e.g. a leading or trailing "---"
		}
		if found {
			return nil, fmt.Errorf("found a second YAML document (document %d); want exactly one", i)
		}
		doc, found = v, true
	}
	if !found {
		return nil, errors.New("empty document")
	}
	return normalize(doc)
}

// normalize converts decoded YAML or JSON values to JSON-compatible ones.
func normalize(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, string:
		return v, nil
	case json.Number:
		return canonicalNumber(string(v))
	case int:
		return json.Number(strconv.Itoa(v)), nil
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(v, 10)), nil
	case float64:
		return canonicalFloat(v)
	case time.Time:
		return v.Format(time.RFC3339Nano), nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			key, err := mapKey(k)
			if err != nil {
				return nil, err
			}
			if _, dup := out[key]; dup {
				return nil, fmt.Errorf("duplicate key %q", key)
			}
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[key] = n
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unsupported value of type %T", v)
	}
}

// mapKey converts a YAML map key to a string the way sigs.k8s.io/yaml does.
func mapKey(k any) (string, error) {
	switch k := k.(type) {
	case string:
		return k, nil
	case int:
		return strconv.Itoa(k), nil
	case int64:
		return strconv.FormatInt(k, 10), nil
	case uint64:
		return strconv.FormatUint(k, 10), nil
	case float64:
		return strconv.FormatFloat(k, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(k), nil
	default:
		return "", fmt.Errorf("unsupported map key %v of type %T", k, k)
	}
}

func canonicalNumber(s string) (json.Number, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(i, 10)), nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return json.Number(strconv.FormatUint(u, 10)), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("number %s: %w", s, err)
	}
	return canonicalFloat(f)
}

func canonicalFloat(f float64) (json.Number, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("number %v cannot be represented in JSON", f)
	}
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return json.Number(strconv.FormatInt(int64(f), 10)), nil
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// depth returns the nesting depth of v (a scalar is 0, an empty map or slice 1),
// stopping early once it exceeds limit.
func depth(v any, limit int) int {
	var children []any
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			children = append(children, e)
		}
	case []any:
		children = v
	default:
		return 0
	}
	d := 1
	for _, c := range children {
		if cd := 1 + depth(c, limit); cd > d {
			d = cd
			if d > limit {
				return d
			}
		}
	}
	return d
}

// Lookup returns the value at path (the keys of nested objects) in the JSON
// value v, and whether it is set: an intermediate value that is not an
// object sets nothing under it.
func Lookup(v any, path []string) (any, bool) {
	for _, key := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[key]; !ok {
			return nil, false
		}
	}
	return v, true
}

// DeepCopy copies JSON values (maps and lists at any depth), so that the
// copy shares nothing the caller could modify.
func DeepCopy(v any) any { return deepCopy(v) }

// deepCopy copies JSON-compatible maps and slices; other values are shared.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	default:
		return v
	}
}
