package schema

import (
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// AssertsFormat reports whether Validate checks values against the format
// name (ipv4, hostname, date-time, …): only the formats the validator knows
// are asserted, any other is an annotation (see the package doc). The
// publisher's gate (pkg/upgrade) uses it to tell a format that now refuses
// values from one that changes nothing.
func AssertsFormat(name string) bool {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(rootURL, map[string]any{"format": name}); err != nil {
		return false
	}
	s, err := c.Compile(rootURL)
	return err == nil && s.Format != nil
}
