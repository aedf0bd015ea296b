package schema

import (
	"strings"
	"testing"
)

func TestCRD(t *testing.T) {
	s, err := Compile([]byte("$schema: https://json-schema.org/draft/2020-12/schema\ntype: object\nadditionalProperties: false\nproperties:\n  replicas: {type: integer, minimum: 1, default: 2}\n"), "schema.yaml", DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	out, err := CRD(s.JSON(), "dns.addons.example.com/v1alpha1", "DNSConfig")
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{"kind: CustomResourceDefinition", "name: dnsconfigs.dns.addons.example.com", "group: dns.addons.example.com",
		"kind: DNSConfig", "name: v1alpha1", "minimum: 1", "default: 2", "openAPIV3Schema:"} {
		if !strings.Contains(got, want) {
			t.Errorf("CRD lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"$schema", "additionalProperties"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("CRD keeps %q:\n%s", unwanted, got)
		}
	}
	withRef, err := Compile([]byte("type: object\n$defs:\n  num: {type: integer}\nproperties:\n  a:\n    $ref: '#/$defs/num'\n"), "s.yaml", DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CRD(withRef.JSON(), "a.example.com/v1", "A"); err == nil || !strings.Contains(err.Error(), "spec.a: $ref") {
		t.Fatalf("schema with $ref: %v", err)
	}
	if _, err := CRD(s.JSON(), "noversion", "A"); err == nil {
		t.Fatal("bad apiVersion accepted")
	}
	y, err := OpenAPI(s.JSON())
	if err != nil || !strings.Contains(string(y), "replicas:") {
		t.Fatalf("OpenAPI: %s %v", y, err)
	}
}
