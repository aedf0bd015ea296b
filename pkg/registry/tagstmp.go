package registry

import (
	"context"
)

// ListTags lists the tags of ref's repository, at most max (more is an
// error naming the repository), within Tags' page bound. Temporary: callers
// move to Client.Tags.
func (c *Client) ListTags(ctx context.Context, ref Reference, max int) ([]string, error) {
	return c.Tags(ctx, ref, TagLimits{MaxTags: max})
}
