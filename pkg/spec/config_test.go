package spec_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/spec"
)

const addonJSON = `{"apiVersion":"addonpack.dev/v1alpha1","kind":"Addon","metadata":{"name":"hello"},"spec":{"version":"1.0.0","description":"x"%s}}`

func TestParseConfigBlob(t *testing.T) {
	withConfig := `,"config":{"apiVersion":"hello.example.com/v1","kind":"HelloConfig","schema":"schema.yaml"}`
	tests := []struct {
		name, blob, want string
	}{
		{"no config type", `{"addon":` + strings.Replace(addonJSON, "%s", "", 1) + `}`, ""},
		{"config type with schema", `{"addon":` + strings.Replace(addonJSON, "%s", withConfig, 1) + `,"schema":{"type":"object"}}`, ""},
		{"config type without schema", `{"addon":` + strings.Replace(addonJSON, "%s", withConfig, 1) + `}`, "schema: must be present exactly when addon.spec.config is"},
		{"schema without config type", `{"addon":` + strings.Replace(addonJSON, "%s", "", 1) + `,"schema":{}}`, "schema: must be present exactly when"},
		{"schema not an object", `{"addon":` + strings.Replace(addonJSON, "%s", withConfig, 1) + `,"schema":[1]}`, "schema: must be a JSON object"},
		{"unknown field", `{"addon":` + strings.Replace(addonJSON, "%s", "", 1) + `,"extra":1}`, `unknown member "extra"`},
		{"member name in another case", `{"Addon":` + strings.Replace(addonJSON, "%s", "", 1) + `}`, `unknown member "Addon"`},
		{"repeated member", `{"addon":` + strings.Replace(addonJSON, "%s", "", 1) + `,"addon":` + strings.Replace(addonJSON, "%s", "", 1) + `}`, `member "addon" repeated`},
		{"stray brace", `{"addon":` + strings.Replace(addonJSON, "%s", "", 1) + `}}`, "trailing data"},
		{"not an object", `[1]`, "want a JSON object"},
		{"no addon", `{}`, "addon: is missing"},
		{"invalid addon", `{"addon":{"apiVersion":"addonpack.dev/v1alpha1","kind":"Addon","metadata":{"name":"X"},"spec":{"version":"1","description":"x"}}}`, "metadata.name"},
		{"trailing data", `{"addon":` + strings.Replace(addonJSON, "%s", "", 1) + `} {}`, "trailing data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cb, err := spec.ParseConfigBlob([]byte(tt.blob), "ref config")
			if tt.want == "" {
				if err != nil || cb.Addon.Metadata.Name != "hello" {
					t.Fatalf("got %+v, %v", cb, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "ref config") || !errors.Is(err, spec.ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid naming the blob and %q", err, tt.want)
			}
		})
	}
}

func FuzzParseConfigBlob(f *testing.F) {
	f.Add([]byte(`{"addon":` + strings.Replace(addonJSON, "%s", "", 1) + `}`))
	f.Add([]byte(`{"addon":{},"schema":{"type":"object"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cb, err := spec.ParseConfigBlob(data, "blob")
		if err != nil {
			return
		}
		if _, err := json.Marshal(cb); err != nil {
			t.Fatal(err)
		}
		if cb.Addon.Metadata.Name == "" {
			t.Fatal("accepted a blob without an add-on name")
		}
	})
}
