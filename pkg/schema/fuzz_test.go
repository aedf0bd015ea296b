package schema

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var fuzzSchemaFiles = []string{"coredns-schema.yaml", "coredns-schema.json", "draft07-schema.json"}

// FuzzCompile checks that Compile never panics, that every failure names the
// file, and that a compiled schema round-trips through JSON() to the same bytes.
func FuzzCompile(f *testing.F) {
	for _, name := range fuzzSchemaFiles {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte("type: object\nproperties:\n  a: {$ref: 'https://example.com/x'}\n"))
	f.Add([]byte("type: object\nproperties:\n  a: {$ref: '#/properties/b'}\n  b: {$ref: '#/properties/a'}\n"))
	f.Add([]byte("type: object\nproperties: {a: {type: string, nullable: true, enum: [x]}}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("{type: object, properties: {a: {$ref: '#', default: {}}}}"))
	f.Add([]byte(fanOut(4, 3, "allOf")))
	f.Add([]byte(fanOut(9, 4, "properties")))
	f.Add([]byte(`{"type":"object","$defs":{"x":{"$id":"http://e/x","$schema":"http://e/m"}}}`))
	limits := Limits{MaxBytes: 64 << 10, MaxDepth: 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Compile(data, "fuzz.yaml", limits)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		again, err := Compile(s.JSON(), "fuzz.json", limits)
		if errors.Is(err, ErrLimit) {
			return // YAML aliases can expand past MaxBytes
		}
		if err != nil {
			t.Fatalf("JSON() of a compiled schema does not compile: %v\n%s", err, s.JSON())
		}
		if !bytes.Equal(again.JSON(), s.JSON()) {
			t.Fatalf("JSON() not stable:\n%s\n%s", s.JSON(), again.JSON())
		}
		_ = s.Validate(map[string]any{})
		if _, err := s.ApplyDefaults(map[string]any{}); err != nil && !errors.Is(err, ErrLimit) {
			t.Fatalf("ApplyDefaults: %v", err)
		}
	})
}

// FuzzValidate decodes arbitrary specs and checks that Validate and
// ApplyDefaults never panic, that errors are sorted *ValidationErrors, and that
// ApplyDefaults leaves its input alone.
func FuzzValidate(f *testing.F) {
	for _, name := range []string{"coredns-valid.yaml", "coredns-invalid.yaml"} {
		f.Add(uint8(0), readTestdata(f, name))
	}
	f.Add(uint8(1), []byte(`{"upstreams": ["1.1.1.1"], "ports": [0, 1, 70000], "mode": null}`))
	f.Add(uint8(2), []byte(`{"zones": [{}, {"ttl": "x"}], "resources": {"limits": {"a.b": true}}}`))
	schemas := make([]*Schema, len(fuzzSchemaFiles))
	for i, name := range fuzzSchemaFiles {
		schemas[i] = mustCompile(f, name)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		v, err := Decode(data, "fuzz.yaml")
		if err != nil {
			return
		}
		if m, ok := v.(map[string]any); ok && m["spec"] != nil {
			v = m["spec"]
		}
		s := schemas[int(which)%len(schemas)]
		before, _ := canonicalJSON(v)
		err = s.Validate(v)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) || len(ve.Errors) == 0 {
				t.Fatalf("Validate error %v (%T)", err, err)
			}
			for _, fe := range ve.Errors {
				if !strings.HasPrefix(fe.Path, "spec") || fe.Message == "" {
					t.Fatalf("bad field error %+v", fe)
				}
			}
		}
		// ValidatePartial (upgrade plan) passes what Validate passes, and
		// never reports a missing property.
		if perr := s.ValidatePartial(v); perr != nil {
			var pe *ValidationError
			if err == nil || !errors.As(perr, &pe) || len(pe.Errors) == 0 {
				t.Fatalf("ValidatePartial %v where Validate says %v", perr, err)
			}
			for _, fe := range pe.Errors {
				if strings.HasPrefix(fe.Message, "missing property") {
					t.Fatalf("ValidatePartial reported %+v", fe)
				}
			}
		}
		if _, err := s.ApplyDefaults(v); err != nil && !errors.Is(err, ErrLimit) {
			t.Fatalf("ApplyDefaults: %v", err)
		}
		if after, _ := canonicalJSON(v); !bytes.Equal(before, after) {
			t.Fatalf("ApplyDefaults modified its input:\n%s\n%s", before, after)
		}
	})
}
