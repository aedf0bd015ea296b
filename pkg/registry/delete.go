package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrDeleteUnsupported reports a registry that refuses DELETE on manifests
// (HTTP 405, or the registry error code UNSUPPORTED): CNCF distribution
// without storage.delete.enabled, and most hosted registries for tags.
var ErrDeleteUnsupported = errdef.New(errdef.ErrUnsupported, "registry does not allow deletes")

// Delete removes what ref names from its repository: with a digest, the
// manifest (the registry removes the tags pointing at it too); with only a
// tag, the tag alone (OCI 1.1 "DELETE /v2/<name>/manifests/<tag>"; registries
// that only delete by digest, such as distribution 2.8, give
// ErrDeleteUnsupported). Nothing at ref is
// ErrNotFound. Blobs stay until the registry's garbage collection.
func (c *Client) Delete(ctx context.Context, ref Reference) error {
	name := ref.String()
	target := ref.Digest.String()
	if ref.Digest == "" {
		target = ref.Tag
	}
	if target == "" {
		return fmt.Errorf("delete %s: %w: no tag or digest", name, ErrInvalidReference)
	}
	repo, err := c.repository(ctx, ref)
	if err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	ctx, u := endpoint(ctx, repo, "manifests", target)
	ctx = auth.AppendRepositoryScope(ctx, repo.Reference, auth.ActionDelete)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil)
	if err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	resp, err := repo.Client.Do(req)
	if err != nil {
		return c.wrapErr("delete", name, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusAccepted, http.StatusOK, http.StatusNoContent:
		return nil
	case http.StatusMethodNotAllowed:
		return fmt.Errorf("delete %s: %w (HTTP 405)", name, ErrDeleteUnsupported)
	}
	rerr := parseErrorResponse(resp)
	var er *errcode.ErrorResponse
	if errors.As(rerr, &er) {
		for _, e := range er.Errors {
			// Distribution 2.8 deletes only by digest: a tag is
			// "DIGEST_INVALID" (400) to it.
			if e.Code == errcode.ErrorCodeUnsupported || (ref.Digest == "" && e.Code == errcode.ErrorCodeDigestInvalid) {
				return fmt.Errorf("delete %s: %w: %w", name, ErrDeleteUnsupported, rerr)
			}
		}
	}
	return c.wrapErr("delete", name, rerr)
}
