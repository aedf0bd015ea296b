package convert

import "github.com/addonpack/addonpack/pkg/spec"

// NewUnestimated is New, for tests of the bounds checked while converting
// (a package built by an older builder passed fewer checks).
func NewUnestimated(c *spec.Config) (*Chain, error) { return New(c) }
