package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Push copies the graph rooted at root from src (an oras memory store, an OCI
// layout store, ...) to ref's repository and returns the pushed reference by
// digest ("registry/repository@sha256:...").
//
// Every node is checked with HEAD first and skipped when the registry already
// has it (when root itself exists, nothing below it is visited); missing
// blobs are uploaded concurrently (Options.Concurrency); a manifest is pushed
// only after all its blobs. If ref.Tag is set the root manifest is pushed
// with a single PUT by tag (the registry addresses it by digest as well);
// otherwise it is pushed by digest. If ref.Digest is set it must equal
// root.Digest.
func (c *Client) Push(ctx context.Context, src content.ReadOnlyStorage, root ocispec.Descriptor, ref Reference) (Reference, error) {
	return c.PushAfter(ctx, src, root, ref, nil)
}

// PushAfter is Push, except that it calls before (unless nil) once every
// blob below root is in the registry and before the root manifest is
// written. When before fails, the push stops there: no manifest and no tag
// are written (uploaded blobs stay unreferenced). A publisher uses it to
// upload while a signing key is still being unlocked.
func (c *Client) PushAfter(ctx context.Context, src content.ReadOnlyStorage, root ocispec.Descriptor, ref Reference, before func(context.Context) error) (Reference, error) {
	return c.push(ctx, src, root, ref, before, false)
}

// PushNew is Push for a graph just made (a signature or attestation image):
// it uploads every node without asking first whether the registry has it,
// which would cost a HEAD per blob and two for the root, all answered 404.
// A blob the registry does have is uploaded again, which is harmless.
func (c *Client) PushNew(ctx context.Context, src content.ReadOnlyStorage, root ocispec.Descriptor, ref Reference) (Reference, error) {
	return c.push(ctx, src, root, ref, nil, true)
}

func (c *Client) push(ctx context.Context, src content.ReadOnlyStorage, root ocispec.Descriptor, ref Reference, before func(context.Context) error, fresh bool) (Reference, error) {
	name := ref.String()
	if err := root.Digest.Validate(); err != nil {
		return Reference{}, fmt.Errorf("push %s: invalid root digest %q: %w", name, root.Digest, err)
	}
	if ref.Digest != "" && ref.Digest != root.Digest {
		return Reference{}, fmt.Errorf("push %s: %w: reference pins %s but root is %s", name, errdef.ErrDigestMismatch, ref.Digest, root.Digest)
	}
	if root.Size > c.opts.MaxManifestSize {
		return Reference{}, fmt.Errorf("push %s: %w: root manifest %s is %d bytes, limit %d",
			name, ErrTooLarge, root.Digest, root.Size, c.opts.MaxManifestSize)
	}
	if ref.Tag != "" {
		o := ref.orasRef()
		o.Reference = ref.Tag
		if err := o.ValidateReferenceAsTag(); err != nil {
			return Reference{}, fmt.Errorf("push %s: %w: %w", name, ErrInvalidReference, err)
		}
	}
	repo, err := c.repository(ctx, ref)
	if err != nil {
		return Reference{}, fmt.Errorf("push %s: %w", name, err)
	}

	opts := oras.CopyGraphOptions{
		Concurrency:      c.opts.Concurrency,
		MaxMetadataBytes: c.opts.MaxManifestSize,
	}
	if before != nil && ref.Tag == "" {
		opts.PreCopy = func(ctx context.Context, desc ocispec.Descriptor) error {
			if !content.Equal(desc, root) {
				return nil
			}
			return before(ctx)
		}
	}
	if ref.Tag != "" {
		tagRoot := func(ctx context.Context) error {
			if before != nil {
				if err := before(ctx); err != nil {
					return err
				}
			}
			return pushTagged(ctx, src, repo, root, ref.Tag)
		}
		// The root is pushed by tag instead of by digest (one PUT), whether
		// it still has to be copied or already exists in the registry.
		opts.PreCopy = func(ctx context.Context, desc ocispec.Descriptor) error {
			if !content.Equal(desc, root) {
				return nil
			}
			if err := tagRoot(ctx); err != nil {
				return err
			}
			return oras.SkipNode
		}
		opts.OnCopySkipped = func(ctx context.Context, desc ocispec.Descriptor) error {
			if !content.Equal(desc, root) {
				return nil
			}
			return tagRoot(ctx)
		}
	}
	if c.opts.Progress != nil {
		src = meteredSource{ReadOnlyStorage: src, c: c, repo: ref.Repo()}
	}
	var dst content.Storage = repo
	if fresh {
		dst = unasked{repo, src}
	}
	if err := oras.CopyGraph(ctx, src, dst, root, opts); err != nil && !supersededIndexKept(err) {
		return Reference{}, c.wrapErr("push", name, err)
	}
	return ref.WithDigest(root.Digest), nil
}

// pushTagged reads the root manifest from src (verifying size and digest)
// and PUTs it to repo under tag.
func pushTagged(ctx context.Context, src content.ReadOnlyStorage, repo *remote.Repository, root ocispec.Descriptor, tag string) error {
	b, err := content.FetchAll(ctx, src, root)
	if err != nil {
		return fmt.Errorf("read root manifest %s from source: %w", root.Digest, err)
	}
	if err := repo.PushReference(ctx, root, bytes.NewReader(b), tag); err != nil {
		return fmt.Errorf("tag %s as %q: %w", root.Digest, tag, err)
	}
	return nil
}

// unasked is a repository that CopyGraph does not ask whether it has the
// nodes the source holds (the new ones); others, such as the subject a
// referrer points at, are looked up as usual.
type unasked struct {
	*remote.Repository
	src content.ReadOnlyStorage
}

func (u unasked) Exists(ctx context.Context, d ocispec.Descriptor) (bool, error) {
	if ok, err := u.src.Exists(ctx, d); err == nil && ok {
		return false, nil
	}
	return u.Repository.Exists(ctx, d)
}

// supersededIndexKept reports the one failure after which the push is
// complete: on a registry without the referrers API, oras-go has pushed the
// manifest and the updated referrers index (sha256-<hex> tag) and then could
// not delete the index it replaces, as on CNCF distribution with deletes
// disabled (its default). The old index stays, untagged, until the
// registry's garbage collection.
func supersededIndexKept(err error) bool {
	var re *remote.ReferrersError
	return errors.As(err, &re) && re.IsReferrersIndexDelete()
}
