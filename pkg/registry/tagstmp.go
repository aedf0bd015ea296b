package registry

import (
	"context"
	"fmt"
)

// ListTags lists the tags of ref's repository, at most max (more is an
// error naming the repository). Temporary: replaced by Client.Tags from the
// stacks branch.
func (c *Client) ListTags(ctx context.Context, ref Reference, max int) ([]string, error) {
	repo, err := c.repository(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("tags %s: %w", ref.Repo(), err)
	}
	var out []string
	err = repo.Tags(ctx, "", func(page []string) error {
		out = append(out, page...)
		if len(out) > max {
			return fmt.Errorf("more than %d tags", max)
		}
		return nil
	})
	if err != nil {
		return nil, wrapErr("tags", ref.Repo(), err)
	}
	return out, nil
}
