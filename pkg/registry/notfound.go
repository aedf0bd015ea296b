package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"oras.land/oras-go/v2/registry/remote"
)

// maxTagListBytes bounds the tag list read to explain a missing tag.
const maxTagListBytes = 1 << 20

// closeTagCount is how many close tags a missing-tag error lists.
const closeTagCount = 5

// ExplainNotFound turns err, a Resolve or ResolveManifest failure for ref,
// into an error that says which part is unknown when it is ErrNotFound: the
// repository (it has no tags), the tag (listing the closest tags the
// repository has), or the digest. It asks the registry for the tag list once
// (one bounded page), so it is for the reference a user named, not for
// lookups where a missing tag is normal (cosign's signature tags). Any other
// error, or a tag list that cannot be read, leaves err unchanged.
func (c *Client) ExplainNotFound(ctx context.Context, ref Reference, err error) error {
	if !errors.Is(err, ErrNotFound) {
		return err
	}
	repo, rerr := c.repository(ctx, ref)
	if rerr != nil {
		return err
	}
	tags, listErr := c.tagList(ctx, repo)
	switch {
	case errors.Is(listErr, ErrNotFound) || (listErr == nil && len(tags) == 0):
		return fmt.Errorf("resolve %s: %w: repository %s does not exist (no tags)", ref, ErrNotFound, ref.Repo())
	case listErr != nil:
		return err
	case ref.Tag != "":
		named := namingTags(tags)
		if len(named) == 0 {
			return fmt.Errorf("resolve %s: %w: repository %s has no tag %q; it holds only signature and referrer tags",
				ref, ErrNotFound, ref.Repo(), ref.Tag)
		}
		close := closeTags(ref.Tag, named, closeTagCount)
		return fmt.Errorf("resolve %s: %w: repository %s has no tag %q; closest of its %d tags: %s",
			ref, ErrNotFound, ref.Repo(), ref.Tag, len(named), strings.Join(close, ", "))
	}
	return fmt.Errorf("resolve %s: %w: repository %s exists but has no manifest %s", ref, ErrNotFound, ref.Repo(), ref.Digest)
}

// namingTags leaves out the tags that only vouch for an artifact — cosign's
// "sha256-<hex>.sig/.att/.sbom" and the referrers tag schema's
// "sha256-<hex>" — which nobody means to pull: they are not suggestions.
func namingTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if !strings.HasPrefix(t, "sha256-") {
			out = append(out, t)
		}
	}
	return out
}

// tagList reads the first page of GET /v2/<repo>/tags/list, bounded.
func (c *Client) tagList(ctx context.Context, repo *remote.Repository) ([]string, error) {
	resp, err := c.get(ctx, repo, http.MethodGet, "tags", "list", "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.wrapErr("list tags of", repo.Reference.String(), parseErrorResponse(resp))
	}
	var body struct {
		Tags []string `json:"tags"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxTagListBytes)).Decode(&body); err != nil {
		return nil, fmt.Errorf("list tags of %s: %w", repo.Reference, err)
	}
	return body.Tags, nil
}

// closeTags returns up to n of tags closest to want: by edit distance, then
// by the length of the common prefix, then by name.
func closeTags(want string, tags []string, n int) []string {
	type scored struct {
		tag          string
		dist, prefix int
	}
	s := make([]scored, 0, len(tags))
	for _, t := range tags {
		p := 0
		for p < len(t) && p < len(want) && t[p] == want[p] {
			p++
		}
		s = append(s, scored{t, editDistance(want, t), p})
	}
	sort.Slice(s, func(i, j int) bool {
		if s[i].dist != s[j].dist {
			return s[i].dist < s[j].dist
		}
		if s[i].prefix != s[j].prefix {
			return s[i].prefix > s[j].prefix
		}
		return s[i].tag < s[j].tag
	})
	out := make([]string, 0, n)
	for i := 0; i < len(s) && i < n; i++ {
		out = append(out, s[i].tag)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b (tags are at most 128
// bytes by the distribution spec, so the quadratic cost is bounded).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
