package schema

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	deep := "type: object\nx-deep: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n"
	tests := []struct {
		name    string
		file    string // default inline.yaml
		src     string
		limits  Limits
		wantErr []string // substrings of the error; nil means success
		is      error
	}{
		{name: "yaml", src: "type: object\nproperties:\n  replicas: {type: integer, minimum: 1}\n"},
		{name: "json", src: `{"type":"object","properties":{"replicas":{"type":"integer"}}}`},
		{name: "json with leading whitespace and BOM", src: "\xef\xbb\xbf\n  {\"type\": \"object\"}"},
		{name: "draft-07", src: "$schema: http://json-schema.org/draft-07/schema#\ntype: object\n"},
		{name: "2019-09", src: "$schema: https://json-schema.org/draft/2019-09/schema\ntype: object\n"},
		{name: "2020-12", src: "$schema: https://json-schema.org/draft/2020-12/schema\ntype: object\n"},
		{name: "nullable", src: "type: object\nproperties:\n  a: {type: string, nullable: true, enum: [x, y]}\n"},
		{name: "x-kubernetes extensions", src: "type: object\nx-kubernetes-preserve-unknown-fields: true\nproperties:\n" +
			"  q: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}\n" +
			"  l: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object}}\n"},
		{name: "example and unknown formats", src: "type: object\nproperties:\n" +
			"  a: {type: string, format: kubernetes-quantity, example: 100m}\n  b: {type: integer, format: int32}\n  c: {type: string, format: byte}\n"},
		{name: "fragment refs", src: "type: object\nproperties:\n  a: {$ref: '#/$defs/a'}\n$defs:\n  a: {type: string}\n"},
		{name: "data that looks like a ref is not a ref", src: "type: object\nproperties:\n" +
			"  a: {type: object, default: {$ref: 'https://example.com/x'}, enum: [{$ref: 'y.json'}]}\n  $ref: {type: string}\n"},

		{name: "external https ref", src: "type: object\nproperties:\n  a: {$ref: 'https://example.com/schema.json'}\n",
			wantErr: []string{"inline.yaml", `"https://example.com/schema.json"`, "/properties/a"}, is: ErrExternalRef},
		{name: "external file ref", src: "type: object\nproperties:\n  a: {$ref: 'file:///etc/passwd'}\n",
			wantErr: []string{"inline.yaml", `"file:///etc/passwd"`}, is: ErrExternalRef},
		{name: "relative ref", src: "type: object\nproperties:\n  a: {items: {$ref: 'other.json'}}\n",
			wantErr: []string{"inline.yaml", `"other.json"`, "/properties/a/items"}, is: ErrExternalRef},
		{name: "ref in $defs", src: "type: object\n$defs:\n  a: {allOf: [{$ref: 'other.json#/x'}]}\n",
			wantErr: []string{`"other.json#/x"`, "/$defs/a/allOf/0"}, is: ErrExternalRef},
		{name: "external metaschema of an embedded resource", src: "type: object\n$defs:\n  a: {$id: 'http://example.com/a', $schema: 'http://example.com/meta'}\n",
			wantErr: []string{"inline.yaml", `"http://example.com/meta"`}, is: ErrExternalRef},
		{name: "unsupported draft", src: "$schema: http://json-schema.org/draft-04/schema#\ntype: object\n",
			wantErr: []string{"inline.yaml", "unsupported $schema"}},
		{name: "too large", src: "type: object\ndescription: " + strings.Repeat("x", 200) + "\n", limits: Limits{MaxBytes: 100},
			wantErr: []string{"inline.yaml", "limit is 100"}, is: ErrLimit},
		{name: "too deep", src: deep, wantErr: []string{"inline.yaml", "depth exceeds 32"}, is: ErrLimit},
		{name: "too deep for a custom limit", src: "type: object\nproperties: {a: {properties: {b: {type: string}}}}\n",
			limits: Limits{MaxDepth: 4}, wantErr: []string{"depth exceeds 4"}, is: ErrLimit},
		{name: "too many subschemas", src: "type: object\nproperties: {a: {type: string}, b: {type: string}, c: {items: {}}}\n",
			limits: Limits{MaxSchemas: 4}, wantErr: []string{"inline.yaml", "more than 4 subschemas"}, is: ErrLimit},
		{name: "not type object", src: "type: array\nitems: {type: string}\n", wantErr: []string{"inline.yaml", "type: object"}},
		{name: "no type", src: "properties: {a: {type: string}}\n", wantErr: []string{"type: object"}},
		{name: "boolean schema", src: "true\n", wantErr: []string{"type: object"}},
		{name: "invalid yaml", src: "type: object\nproperties: [\n", wantErr: []string{"inline.yaml", "invalid YAML"}},
		{name: "invalid json", file: "inline.json", src: `{"type": "object",}`, wantErr: []string{"inline.json", "invalid JSON"}},
		{name: "yaml flow style is not json", src: `{"type": "object",}`},
		{name: "duplicate key", src: "type: object\ntype: object\n", wantErr: []string{"inline.yaml", `"type" already set`}},
		{name: "two documents", src: "type: object\n---\ntype: object\n", wantErr: []string{"inline.yaml", "second YAML document"}},
		{name: "empty", src: "", wantErr: []string{"inline.yaml", "empty document"}},
		{name: "unknown type name", src: "type: object\nproperties:\n  a: {type: strng}\n", wantErr: []string{"inline.yaml", "/properties/a/type"}},
		{name: "bad pattern", src: "type: object\nproperties:\n  a: {type: string, pattern: '(?=x)'}\n",
			wantErr: []string{"inline.yaml", "/properties/a/pattern", "not a valid regex"}},
		{name: "dangling fragment ref", src: "type: object\nproperties:\n  a: {$ref: '#/$defs/missing'}\n",
			wantErr: []string{"inline.yaml", "#/$defs/missing"}},
		{name: "nullable not boolean", src: "type: object\nproperties:\n  a: {type: string, nullable: yes please}\n",
			wantErr: []string{"inline.yaml", "/properties/a", "nullable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "inline.yaml"
			}
			s, err := Compile([]byte(tt.src), file, tt.limits)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				if s.JSON() == nil {
					t.Fatal("JSON() is nil")
				}
				return
			}
			if err == nil {
				t.Fatalf("Compile succeeded, want error containing %q", tt.wantErr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
		})
	}
}

func TestCompileTestdata(t *testing.T) {
	for _, name := range []string{"coredns-schema.yaml", "coredns-schema.json", "draft07-schema.json"} {
		mustCompile(t, name)
	}
}

func TestJSONDeterministic(t *testing.T) {
	a := mustCompileString(t, "type: object\nrequired: [b]\nproperties:\n  b: {type: integer, default: 1.0, maximum: 10}\n  a: {type: string, description: '<x> & y'}\n")
	b, err := Compile([]byte(`{"properties": {"a": {"description": "<x> & y", "type": "string"},
		"b": {"maximum": 10, "default": 1, "type": "integer"}}, "type": "object", "required": ["b"]}`), "b.json", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"a":{"description":"<x> & y","type":"string"},"b":{"default":1,"maximum":10,"type":"integer"}},"required":["b"],"type":"object"}`
	if got := string(a.JSON()); got != want {
		t.Errorf("YAML schema JSON() =\n%s\nwant\n%s", got, want)
	}
	if !bytes.Equal(a.JSON(), b.JSON()) {
		t.Errorf("YAML and JSON forms differ:\n%s\n%s", a.JSON(), b.JSON())
	}
	for range 20 {
		again := mustCompileString(t, "type: object\nproperties:\n  a: {type: string, description: '<x> & y'}\n  b: {maximum: 10, type: integer, default: 1}\nrequired: [b]\n")
		if !bytes.Equal(again.JSON(), a.JSON()) {
			t.Fatalf("JSON() not deterministic:\n%s\n%s", again.JSON(), a.JSON())
		}
	}
	// Callers cannot change the schema through the returned slice.
	j := a.JSON()
	j[0] = 'X'
	if a.JSON()[0] != '{' {
		t.Error("JSON() returned the internal buffer")
	}
}

func TestJSONKeepsOpenAPIKeywords(t *testing.T) {
	s := mustCompileString(t, "type: object\nproperties:\n  a: {type: string, nullable: true}\n")
	if want := `{"properties":{"a":{"nullable":true,"type":"string"}},"type":"object"}`; string(s.JSON()) != want {
		t.Errorf("JSON() = %s, want %s (the document as written)", s.JSON(), want)
	}
}
