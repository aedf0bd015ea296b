package prune

import (
	"context"

	"github.com/addonpack/addonpack/pkg/registry"
)

// ClientRegistry adapts a *registry.Client to Registry.
type ClientRegistry struct{ *registry.Client }

// Tags lists repo's tags, at most max.
func (c ClientRegistry) Tags(ctx context.Context, repo registry.Reference, max int) ([]string, error) {
	return c.Client.ListTags(ctx, repo, max)
}
