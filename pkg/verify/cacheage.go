package verify

import (
	"math"
	"time"

	"github.com/addonpack/addonpack/pkg/registry"
)

// CachedPassAge is how old a remembered pass of ref under p may be at now
// and still stand for a verification: maxAge, shortened so that no key of
// ref's scope expired (notAfter) after the pass was recorded. A pass made
// with a key that has since expired is checked again; keys becoming valid
// only make passing easier, so notBefore never shortens it. A maxAge of 0
// sets no limit of its own. The result 0 means: do not use a remembered pass.
func (p *Policy) CachedPassAge(ref registry.Reference, now time.Time, maxAge time.Duration) time.Duration {
	scope, ok := p.ScopeFor(ref)
	if !ok {
		return 0
	}
	age := maxAge
	if age <= 0 {
		age = math.MaxInt64
	}
	for _, k := range scope.Keys {
		if k.NotAfter != nil && !k.NotAfter.After(now) {
			age = min(age, now.Sub(*k.NotAfter))
		}
	}
	return max(age, 0)
}
