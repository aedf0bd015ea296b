package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := canonicalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApplyDefaults(t *testing.T) {
	s := mustCompileString(t, `
type: object
properties:
  replicas: {type: integer, default: 2}
  cache:
    type: object
    default: {}
    properties:
      ttl: {type: integer, default: 30}
      prefetch: {type: object, properties: {amount: {type: integer, default: 10}}}
  name: {type: string, default: coredns}
  optional: {type: string, nullable: true, default: x}
  zones:
    type: array
    items:
      type: object
      properties:
        name: {type: string}
        ttl: {type: integer, default: 60}
        opts: {type: array, default: [a], items: {type: string}}
  servers:
    type: object
    additionalProperties:
      type: object
      properties:
        port: {type: integer, default: 53}
  ref: {$ref: '#/$defs/withDefault'}
  tuple: {type: array, prefixItems: [{type: object, properties: {a: {default: 1}}}], items: {type: object, properties: {b: {default: 2}}}}
  noDefaults: {type: object, properties: {x: {type: integer}}}
$defs:
  withDefault: {type: object, default: {}, properties: {enabled: {type: boolean, default: true}}}
`)
	tests := []struct{ name, in, want string }{
		{"empty spec", `{}`,
			`{"cache":{"ttl":30},"name":"coredns","optional":"x","ref":{"enabled":true},"replicas":2}`},
		{"present values win, nested objects recurse", `{"replicas": 5, "cache": {"prefetch": {}}, "name": ""}`,
			`{"cache":{"prefetch":{"amount":10},"ttl":30},"name":"","optional":"x","ref":{"enabled":true},"replicas":5}`},
		{"null on a non-nullable field is defaulted, on a nullable one kept", `{"replicas": null, "optional": null}`,
			`{"cache":{"ttl":30},"name":"coredns","optional":null,"ref":{"enabled":true},"replicas":2}`},
		{"arrays of objects and additionalProperties", `{"zones": [{"name": "a"}, {"name": "b", "ttl": 5, "opts": []}],
			"servers": {"dns": {}, "tls": {"port": 853}}, "tuple": [{}, {}, {}], "noDefaults": {}}`,
			`{"cache":{"ttl":30},"name":"coredns","noDefaults":{},"optional":"x","ref":{"enabled":true},"replicas":2,` +
				`"servers":{"dns":{"port":53},"tls":{"port":853}},"tuple":[{"a":1},{"b":2},{"b":2}],` +
				`"zones":[{"name":"a","opts":["a"],"ttl":60},{"name":"b","opts":[],"ttl":5}]}`},
		{"wrong types are left alone", `{"cache": "x", "zones": {"a": 1}}`,
			`{"cache":"x","name":"coredns","optional":"x","ref":{"enabled":true},"replicas":2,"zones":{"a":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := mustDecode(t, tt.in)
			before := canonical(t, in)
			inCopy := deepCopy(in)
			got, err := s.ApplyDefaults(in)
			if err != nil {
				t.Fatal(err)
			}
			if c := canonical(t, got); c != tt.want {
				t.Errorf("ApplyDefaults =\n%s\nwant\n%s", c, tt.want)
			}
			if !reflect.DeepEqual(in, inCopy) || canonical(t, in) != before {
				t.Errorf("input modified: %s", canonical(t, in))
			}
		})
	}
}

func TestApplyDefaultsDoesNotShareDefaults(t *testing.T) {
	s := mustCompileString(t, "type: object\nproperties:\n  a: {type: object, default: {list: [1]}}\n")
	firstV, _ := s.ApplyDefaults(map[string]any{})
	first := firstV.(map[string]any)
	first["a"].(map[string]any)["list"].([]any)[0] = json.Number("99")
	second, _ := s.ApplyDefaults(map[string]any{})
	if c := canonical(t, second); c != `{"a":{"list":[1]}}` {
		t.Errorf("second ApplyDefaults = %s: defaults were shared with an earlier result", c)
	}
	if c := string(s.JSON()); c != `{"properties":{"a":{"default":{"list":[1]},"type":"object"}},"type":"object"}` {
		t.Errorf("schema changed: %s", c)
	}
}

func TestApplyDefaultsRefCycle(t *testing.T) {
	s := mustCompileString(t, `
type: object
properties:
  a: {$ref: '#/properties/b'}
  b: {$ref: '#/properties/a'}
  tree: {$ref: '#/$defs/node'}
$defs:
  node: {type: object, properties: {v: {default: 0}, child: {$ref: '#/$defs/node'}}}
`)
	got, err := s.ApplyDefaults(mustDecode(t, `{"a": {}, "tree": {"child": {"child": {}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := canonical(t, got); c != `{"a":{},"tree":{"child":{"child":{"v":0},"v":0},"v":0}}` {
		t.Errorf("ApplyDefaults = %s", c)
	}
}

func TestApplyDefaultsThenValidate(t *testing.T) {
	s := mustCompile(t, "coredns-schema.yaml")
	spec, err := s.ApplyDefaults(mustDecode(t, `{"upstreams": ["10.0.0.10"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(spec); err != nil {
		t.Fatalf("defaulted spec invalid: %v", err)
	}
	want := `{"cacheTTL":30,"nodeLocalCache":{"enabled":false,"listenIP":"169.254.20.10"},"replicas":2,"upstreams":["10.0.0.10"]}`
	if c := canonical(t, spec); c != want {
		t.Errorf("ApplyDefaults = %s, want %s", c, want)
	}
}
