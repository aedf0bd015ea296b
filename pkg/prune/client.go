package prune

import (
	"context"

	"github.com/addonpack/addonpack/pkg/registry"
)

// ClientRegistry adapts a *registry.Client to Registry.
type ClientRegistry struct{ *registry.Client }

// Tags lists every page of repo's tags, at most max (more is
// registry.ErrTooLarge: no plan from a partial view).
func (c ClientRegistry) Tags(ctx context.Context, repo registry.Reference, max int) ([]string, error) {
	return c.Client.Tags(ctx, repo, registry.TagLimits{MaxTags: max})
}
