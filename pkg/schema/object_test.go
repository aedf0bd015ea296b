package schema

import (
	"strings"
	"testing"
)

func TestParseObject(t *testing.T) {
	const header = "apiVersion: addons.addonpack.dev/v1alpha1\nkind: CoreDNSConfig\n"
	tests := []struct {
		name, file, src string
		wantErr         []string
	}{
		{name: "yaml", src: header + "metadata: {name: x}\nspec: {replicas: 1}\n"},
		{name: "json", file: "c.json", src: `{"apiVersion": "addons.addonpack.dev/v1alpha1", "kind": "CoreDNSConfig", "spec": {}}`},
		{name: "leading separator", src: "---\n" + header + "spec: {}\n"},
		{name: "wrong apiVersion", src: "apiVersion: addons.addonpack.dev/v1\nkind: CoreDNSConfig\nspec: {}\n",
			wantErr: []string{"c.yaml", "apiVersion", `got "addons.addonpack.dev/v1"`, `want "addons.addonpack.dev/v1alpha1"`}},
		{name: "wrong kind", src: "apiVersion: addons.addonpack.dev/v1alpha1\nkind: CoreDNS\nspec: {}\n",
			wantErr: []string{"c.yaml", "kind", `got "CoreDNS"`, `want "CoreDNSConfig"`}},
		{name: "missing apiVersion", src: "kind: CoreDNSConfig\nspec: {}\n", wantErr: []string{"c.yaml", "apiVersion is required"}},
		{name: "kind not a string", src: "apiVersion: addons.addonpack.dev/v1alpha1\nkind: [x]\nspec: {}\n", wantErr: []string{"kind must be a string"}},
		{name: "two documents", src: header + "spec: {}\n---\n" + header + "spec: {}\n", wantErr: []string{"c.yaml", "second YAML document"}},
		{name: "missing spec", src: header, wantErr: []string{"c.yaml", "spec is required"}},
		{name: "null spec", src: header + "spec:\n", wantErr: []string{"c.yaml", "spec is required"}},
		{name: "unknown field", src: header + "spec: {}\nstatus: {}\nSpec: {}\n", wantErr: []string{"c.yaml", `"Spec", "status"`}},
		{name: "metadata not an object", src: header + "metadata: x\nspec: {}\n", wantErr: []string{"c.yaml", "metadata must be an object"}},
		{name: "not an object", src: "- a\n", wantErr: []string{"c.yaml", "got an array"}},
		{name: "invalid yaml", src: header + "spec: {\n", wantErr: []string{"c.yaml", "invalid YAML"}},
		{name: "duplicate key", src: header + "spec: {}\nspec: {}\n", wantErr: []string{"c.yaml", "already set"}},
		{name: "invalid json", file: "c.json", src: `{"apiVersion": 1,}`, wantErr: []string{"c.json", "invalid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "c.yaml"
			}
			obj, err := ParseObject([]byte(tt.src), file, "addons.addonpack.dev/v1alpha1", "CoreDNSConfig")
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if obj.APIVersion != "addons.addonpack.dev/v1alpha1" || obj.Kind != "CoreDNSConfig" || obj.Spec == nil {
					t.Errorf("ParseObject = %+v", obj)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseObject succeeded, want error containing %q", tt.wantErr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestParseObjectValues(t *testing.T) {
	obj := mustParseObject(t, "coredns-valid.yaml")
	if obj.Metadata["name"] != "coredns" {
		t.Errorf("metadata = %v", obj.Metadata)
	}
	if c := canonical(t, obj.Spec.(map[string]any)["replicas"]); c != "3" {
		t.Errorf("replicas = %s", c)
	}
}

func TestDecodeNumbersAndKeys(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"a: 1.0\nb: 1e3\nc: 0.5\nd: -0\ne: 18446744073709551615\nf: 0x10\n1: x\ntrue: z\n",
			`{"1":"x","a":1,"b":1000,"c":0.5,"d":0,"e":18446744073709551615,"f":16,"true":"z"}`},
		{`{"a": 1.0, "b": 1E3, "c": 1e400}`, ""},
		{`{"a": 1.50, "b": 100000000000000000000000}`, `{"a":1.5,"b":1e+23}`},
		{"a: yes\nb: '1'\nc: 2001-12-14\n", `{"a":true,"b":"1","c":"2001-12-14"}`},
		{"a: .nan\n", ""},
		{"a: &x [1]\nb: *x\n", `{"a":[1],"b":[1]}`},
	} {
		v, err := Decode([]byte(tt.src), "d.yaml")
		if tt.want == "" {
			if err == nil {
				t.Errorf("Decode(%q) = %v, want error", tt.src, v)
			}
			continue
		}
		if err != nil {
			t.Errorf("Decode(%q): %v", tt.src, err)
			continue
		}
		if c := canonical(t, v); c != tt.want {
			t.Errorf("Decode(%q) = %s, want %s", tt.src, c, tt.want)
		}
	}
}
