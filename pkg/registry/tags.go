package registry

import (
	"context"
	"errors"
	"fmt"
	"io"

	"oras.land/oras-go/v2/errdef"
)

// Bounds of a tag listing (specs/stack.md section 3): a registry drives the
// pagination, so a hostile one could otherwise keep a consumer reading.
const (
	DefaultMaxTags     = 10000
	DefaultMaxTagPages = 100
)

// TagLimits bound Tags; zero fields take the defaults.
type TagLimits struct {
	MaxTags  int // distinct tags; more fails
	MaxPages int // pages of the tag list API; more fails
	// PageSize asks for pages of this many tags ("n"); 0 leaves the page
	// size to the registry.
	PageSize int
}

// errTooManyTags stops a tag listing at the cap.
var errTooManyTags = errors.New("too many tags")

// Tags lists the tags of ref's repository (its tag and digest are ignored),
// following every page of the tag list API and counting a repeated tag once.
// A listing over a limit fails with ErrTooLarge naming the repository and the
// limit; a repository the registry does not know fails with ErrNotFound.
func (c *Client) Tags(ctx context.Context, ref Reference, lim TagLimits) ([]string, error) {
	if lim.MaxTags <= 0 {
		lim.MaxTags = DefaultMaxTags
	}
	if lim.MaxPages <= 0 {
		lim.MaxPages = DefaultMaxTagPages
	}
	name := ref.Repo()
	repo, err := c.repository(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("tags of %s: %w", name, err)
	}
	repo.TagListMaxPages = lim.MaxPages
	repo.TagListPageSize = lim.PageSize
	seen := map[string]bool{}
	var tags []string
	err = repo.Tags(ctx, "", func(page []string) error {
		for _, t := range page {
			if seen[t] {
				continue
			}
			if len(tags) >= lim.MaxTags {
				return errTooManyTags
			}
			seen[t] = true
			tags = append(tags, t)
		}
		return nil
	})
	switch {
	case errors.Is(err, errTooManyTags):
		return nil, fmt.Errorf("tags of %s: more than %d tags: %w", name, lim.MaxTags, ErrTooLarge)
	case errors.Is(err, errdef.ErrTooManyPages):
		return nil, fmt.Errorf("tags of %s: more than %d pages of tags: %w", name, lim.MaxPages, ErrTooLarge)
	case errors.Is(err, io.ErrUnexpectedEOF):
		// oras-go stops reading a page at the manifest size limit, so an
		// oversized page ends in the middle of its JSON.
		return nil, fmt.Errorf("tags of %s: a page of the tag list is cut short or larger than %d bytes: %w: %w", name, c.opts.MaxManifestSize, ErrTooLarge, err)
	case err != nil:
		return nil, c.wrapErr("tags of", name, err)
	}
	return tags, nil
}
