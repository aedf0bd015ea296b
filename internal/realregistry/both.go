package realregistry

import (
	"testing"

	"github.com/addonpack/addonpack/testregistry"
)

// Registry is one kind of registry the test flows run against.
type Registry struct {
	Name string
	// Start starts a fresh instance for t and returns its host:port.
	Start func(t testing.TB) string
}

// Both returns the two registries every flow is proven against:
// addonpack's strict OCI 1.1 registry (with the referrers API) and CNCF
// distribution 2.8 (without it: the referrers tag schema).
func Both() []Registry {
	return []Registry{
		{"testregistry", func(t testing.TB) string { return testregistry.New(t).Host() }},
		{"distribution", func(t testing.TB) string { return Start(t, Options{}) }},
	}
}
