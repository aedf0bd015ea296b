package schema

import (
	"errors"
	"strings"
	"testing"
)

func TestValidatePartial(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","required":["replicas","greeting"],"additionalProperties":false,
"properties":{"replicas":{"type":"integer","maximum":5},
"greeting":{"type":"object","required":["text","language"],"properties":{"text":{"type":"string"},"language":{"enum":["en","de"]}}},
"mode":{"anyOf":[{"type":"object","required":["a"]},{"type":"string"}]}}}`), "schema.json", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec any
		want string // the joined field errors; "" for none
	}{
		{"missing required properties are not reported", map[string]any{"greeting": map[string]any{"text": "hi"}}, ""},
		{"an alternative that lacks only a required property passes", map[string]any{"mode": map[string]any{}}, ""},
		{"what the object holds is checked", map[string]any{"replicas": 7, "greeting": map[string]any{"language": "fr"}, "extra": true},
			"spec.extra: unknown field\nspec.greeting.language: must be one of: \"en\", \"de\"\nspec.replicas: must be <= 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.ValidatePartial(tt.spec)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, ErrInvalid) {
					t.Errorf("not ErrInvalid: %v", err)
				}
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			// Validate still reports the missing properties.
			if full := s.Validate(tt.spec); full == nil || tt.want == "" && !strings.Contains(full.Error(), "missing property") {
				t.Errorf("Validate: %v", full)
			}
		})
	}
}
