package registry

import (
	"context"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
)

// errTooManyReferrers stops a referrers listing at the caller's cap.
var errTooManyReferrers = errors.New("too many referrers")

// MaxReferrerPages bounds the pages of one referrers listing: the registry
// drives the pagination (a Link header to the next page), so a hostile one
// answering empty pages, each linking to another, would otherwise be
// followed forever.
const MaxReferrerPages = 100

// Referrers lists the manifests whose subject is the manifest subject in
// ref's repository, filtered by artifactType ("" for all). It uses the OCI
// 1.1 referrers API and, on registries without it, the referrers tag schema
// ("sha256-<hex>" index), as oras-go does; every listing page or index is
// bounded by MaxManifestSize, and at most MaxReferrerPages pages are read
// (more is ErrTooLarge). At most max descriptors are returned: when the
// registry lists more, truncated is true and the first max are returned (max
// <= 0 means no cap). No referrer at all is an empty list, not ErrNotFound.
func (c *Client) Referrers(ctx context.Context, ref Reference, subject ocispec.Descriptor, artifactType string, max int) (list []ocispec.Descriptor, truncated bool, err error) {
	name := ref.Repo() + "@" + subject.Digest.String()
	repo, err := c.repository(ctx, ref)
	if err != nil {
		return nil, false, fmt.Errorf("referrers %s: %w", name, err)
	}
	c.referrers.apply(ref.Registry, repo)
	repo.ReferrerListMaxPages = MaxReferrerPages
	err = repo.Referrers(ctx, subject, artifactType, func(page []ocispec.Descriptor) error {
		for _, d := range page {
			if max > 0 && len(list) >= max {
				truncated = true
				return errTooManyReferrers
			}
			list = append(list, d)
		}
		return nil
	})
	if err == nil || errors.Is(err, errTooManyReferrers) {
		c.referrers.learn(ref.Registry, repo)
	}
	switch {
	case errors.Is(err, errTooManyReferrers):
		return list, true, nil
	case errors.Is(err, errdef.ErrTooManyPages):
		return nil, false, fmt.Errorf("referrers %s: more than %d pages of referrers: %w", name, MaxReferrerPages, ErrTooLarge)
	case errors.Is(err, ErrNotFound) || sentinelFor(err) == ErrNotFound:
		return nil, false, nil
	case err != nil:
		return nil, false, c.wrapErr("referrers", name, err)
	}
	return list, truncated, nil
}
