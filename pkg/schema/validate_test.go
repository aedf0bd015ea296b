package schema

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

const coreDNSAPIVersion, coreDNSKind = "addons.addonpack.dev/v1alpha1", "CoreDNSConfig"

func mustParseObject(t testing.TB, name string) *Object {
	t.Helper()
	obj, err := ParseObject(readTestdata(t, name), name, coreDNSAPIVersion, coreDNSKind)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func fieldErrors(t *testing.T, err error) []FieldError {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T) is not a *ValidationError", err, err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("errors.Is(err, ErrInvalid) = false")
	}
	return ve.Errors
}

func TestValidateCoreDNS(t *testing.T) {
	s := mustCompile(t, "coredns-schema.yaml")
	if err := s.Validate(mustParseObject(t, "coredns-valid.yaml").Spec); err != nil {
		t.Fatalf("valid config: %v", err)
	}

	err := s.Validate(mustParseObject(t, "coredns-invalid.yaml").Spec)
	want := []FieldError{
		{"spec.cacheTTL", "must be <= 3600"},
		{"spec.replicas", "must be >= 1"},
		{"spec.upstreams[1]", `"not-an-ip" is not a valid ipv4`},
	}
	if got := fieldErrors(t, err); !slices.Equal(got, want) {
		t.Errorf("errors:\n%v\nwant\n%v", got, want)
	}
	wantText := "spec.cacheTTL: must be <= 3600\nspec.replicas: must be >= 1\nspec.upstreams[1]: \"not-an-ip\" is not a valid ipv4"
	if err.Error() != wantText {
		t.Errorf("Error() =\n%s\nwant\n%s", err, wantText)
	}
}

func TestValidateMessages(t *testing.T) {
	s := mustCompile(t, "coredns-schema.yaml")
	tests := []struct {
		name string
		spec string
		want []FieldError
	}{
		{"missing required", `{"replicas": 1}`, []FieldError{{"spec", "missing property 'upstreams'"}}},
		{"wrong types", `{"replicas": "3", "upstreams": "8.8.8.8", "nodeLocalCache": {"enabled": "yes"}}`, []FieldError{
			{"spec.nodeLocalCache.enabled", "must be of type boolean, got string"},
			{"spec.replicas", "must be of type integer, got string"},
			{"spec.upstreams", "must be of type array, got string"},
		}},
		{"not an integer", `{"replicas": 1.5, "upstreams": ["1.1.1.1"]}`, []FieldError{{"spec.replicas", "must be of type integer, got number"}}},
		{"empty array and nested required", `{"replicas": 1, "upstreams": [], "zones": [{"name": "a"}, {"ttl": 5}, {"name": ""}]}`, []FieldError{
			{"spec.upstreams", "must have at least 1 item"},
			{"spec.zones[1]", "missing property 'name'"},
			{"spec.zones[2].name", "must be at least 1 character long"},
		}},
		{"pattern", `{"replicas": 1, "upstreams": ["1.1.1.1"], "zones": [], "resources": {"limits": {"cpu": true, "a.b/c": [1]}}}`, []FieldError{
			{`spec.resources.limits["a.b/c"]`, "must be of type integer or string, got array"},
			{"spec.resources.limits.cpu", "must be of type integer or string, got boolean"},
		}},
		{"nullable", `{"replicas": 1, "upstreams": ["1.1.1.1"], "priorityClassName": 5}`, []FieldError{
			{"spec.priorityClassName", "must be of type null or string, got number"},
		}},
		{"not an object", `[1]`, []FieldError{{"spec", "must be of type object, got array"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fieldErrors(t, s.Validate(mustDecode(t, tt.spec)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestValidateKeywords(t *testing.T) {
	s := mustCompileString(t, `
type: object
additionalProperties: false
properties:
  mode: {type: string, enum: [fast, safe], nullable: true}
  ratio: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25}
  name: {type: string, maxLength: 3, pattern: '^[a-z]+$'}
  tags: {type: array, maxItems: 2, uniqueItems: true, items: {type: string}}
  labels: {type: object, maxProperties: 1, additionalProperties: {type: string}}
  port: {$ref: '#/$defs/port'}
  items: {type: array, items: {type: integer}}
  choice: {oneOf: [{type: integer}, {type: number}]}
$defs:
  port: {type: integer, minimum: 1, maximum: 65535}
`)
	if err := s.Validate(mustDecode(t, `{"mode": null, "ratio": 0.5, "name": "abc", "labels": {"a": "b"}, "port": 53, "choice": 1.5}`)); err != nil {
		t.Fatalf("valid: %v", err)
	}
	spec := mustDecode(t, `{"mode": "slow", "ratio": 0.3, "name": "ABCD", "tags": ["a", "a", "b"],
		"labels": {"a": "b", "c": "d"}, "port": 0, "typo": 1, "items": [1,2,3,4,5,6,7,8,9,10,"x","y"], "choice": 2}`)
	want := []FieldError{
		{"spec.choice", "must match exactly one alternative, but matched alternatives 0 and 1"},
		{"spec.items[10]", "must be of type integer, got string"},
		{"spec.items[11]", "must be of type integer, got string"},
		{"spec.labels", "must have at most 1 property"},
		{"spec.mode", `must be one of: "fast", "safe", null`},
		{"spec.name", `"ABCD" does not match pattern "^[a-z]+$"`},
		{"spec.name", "must be at most 3 characters long"},
		{"spec.port", "must be >= 1"},
		{"spec.ratio", "must be a multiple of 0.25"},
		{"spec.tags", "items [0] and [1] are duplicates"},
		{"spec.tags", "must have at most 2 items"},
		{"spec.typo", "unknown field"},
	}
	if got := fieldErrors(t, s.Validate(spec)); !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant\n%s", fmtErrs(got), fmtErrs(want))
	}
	if got := fieldErrors(t, s.Validate(map[string]any{"ratio": 1.0})); !slices.Equal(got, []FieldError{{"spec.ratio", "must be < 1"}}) {
		t.Errorf("float64 input: %v", got)
	}
	if got := fieldErrors(t, s.Validate(map[string]any{"ratio": json.Number("0")})); !slices.Equal(got, []FieldError{{"spec.ratio", "must be > 0"}}) {
		t.Errorf("json.Number input: %v", got)
	}
}

func fmtErrs(errs []FieldError) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.String()
	}
	return strings.Join(lines, "\n")
}

func TestValidateDraft07(t *testing.T) {
	s := mustCompile(t, "draft07-schema.json")
	if err := s.Validate(mustDecode(t, `{"mode": null, "ports": [53, 8080]}`)); err != nil {
		t.Fatalf("valid: %v", err)
	}
	want := []FieldError{{"spec.mode", `must be one of: "fast", "safe", null`}, {"spec.ports[1]", "must be <= 65535"}}
	if got := fieldErrors(t, s.Validate(mustDecode(t, `{"mode": "x", "ports": [53, 80800]}`))); !slices.Equal(got, want) {
		t.Errorf("errors: %v, want %v", got, want)
	}
}

func TestValidateConcurrent(t *testing.T) {
	s := mustCompile(t, "coredns-schema.yaml")
	spec := mustParseObject(t, "coredns-invalid.yaml").Spec
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if err := s.Validate(spec); err == nil || len(fieldErrors(t, err)) != 3 {
					t.Errorf("Validate: %v", err)
				}
				if _, err := s.ApplyDefaults(spec); err != nil {
					t.Errorf("ApplyDefaults: %v", err)
				}
			}
		})
	}
	wg.Wait()
}

func TestValidateRefCycle(t *testing.T) {
	s := mustCompileString(t, `
type: object
properties:
  a: {$ref: '#/properties/b'}
  b: {$ref: '#/properties/a'}
  tree: {$ref: '#/$defs/node'}
$defs:
  node: {type: object, properties: {v: {type: integer}, child: {$ref: '#/$defs/node'}}}
`)
	err := s.Validate(mustDecode(t, `{"a": 1, "tree": {"child": {"child": {"v": "x"}}}}`))
	got := fieldErrors(t, err)
	if len(got) != 2 || got[0] != (FieldError{"spec.a", "cannot be validated: the schema's $ref #/properties/a refers to itself"}) || got[1] != (FieldError{"spec.tree.child.child.v", "must be of type integer, got string"}) {
		t.Errorf("errors: %v", got)
	}
}
