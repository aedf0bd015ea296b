package convert

import "github.com/addonpack/addonpack/pkg/spec"

// NewUnestimated is New without the growth estimate, for tests of the
// bounds checked while converting.
func NewUnestimated(c *spec.Config) (*Chain, error) { return newChain(c, options{noGrowth: true}) }
