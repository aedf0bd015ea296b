// Package artifact reads addonpack artifacts from a registry or an OCI layout
// through one small interface, resolving a reference once and checking every
// byte against its descriptor before it is parsed.
package artifact

import (
	"bytes"
	"context"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/registry"
)

// Source is where an artifact is read from. Every fetch is by digest and
// checked for size and digest.
type Source interface {
	// Resolve returns the manifest descriptor; callers call it once.
	Resolve(ctx context.Context) (ocispec.Descriptor, error)
	FetchManifest(ctx context.Context, desc ocispec.Descriptor) ([]byte, error)
	FetchBlobBytes(ctx context.Context, desc ocispec.Descriptor, max int64) ([]byte, error)
	// FetchBlob streams a blob into w; on error, what w received is garbage.
	FetchBlob(ctx context.Context, desc ocispec.Descriptor, w io.Writer) error
	// Name is the reference or layout path, for messages.
	Name() string
	// Pinned names the artifact by digest: "registry/repo@sha256:…" or "layout@sha256:…".
	Pinned(d ocispec.Descriptor) string
}

// ManifestResolver is a Source that can resolve its reference and receive
// the manifest bytes in the same request. The bytes match the returned
// descriptor (size and digest); callers hold them unparsed until the digest
// is verified, and then need no second request for the manifest.
type ManifestResolver interface {
	Source
	ResolveManifest(ctx context.Context) (ocispec.Descriptor, []byte, error)
}

// BlobOpener is a Source that holds blobs on disk, checked, and can hand
// one out to be read in place (the cache) instead of copied: OpenBlob
// returns errors.ErrUnsupported for a blob it cannot, and the caller uses
// FetchBlob.
type BlobOpener interface {
	Source
	OpenBlob(ctx context.Context, desc ocispec.Descriptor) (BlobReader, error)
}

// BlobReader reads a blob in place, hashing what it reads. The bytes may
// be parsed as they are read; once the blob was read to its end, Verified
// says whether they were the blob (size and digest): if not, whatever was
// made of them must be discarded.
type BlobReader interface {
	io.ReadCloser
	Verified() error
}

// Remote is a Source backed by a registry: the artifact Ref names, read
// through Client.
type Remote registry.Target

func (r Remote) Resolve(ctx context.Context) (ocispec.Descriptor, error) {
	d, err := r.Client.Resolve(ctx, r.Ref)
	return d, r.Client.ExplainNotFound(ctx, r.Ref, err)
}

// ResolveManifest resolves with one GET that also returns the manifest.
func (r Remote) ResolveManifest(ctx context.Context) (ocispec.Descriptor, []byte, error) {
	d, raw, err := r.Client.ResolveManifest(ctx, r.Ref)
	return d, raw, r.Client.ExplainNotFound(ctx, r.Ref, err)
}

func (r Remote) FetchManifest(ctx context.Context, d ocispec.Descriptor) ([]byte, error) {
	return r.Client.FetchManifest(ctx, r.Ref, d)
}

func (r Remote) FetchBlobBytes(ctx context.Context, d ocispec.Descriptor, max int64) ([]byte, error) {
	return r.Client.FetchBlobBytes(ctx, r.Ref, d, max)
}

func (r Remote) FetchBlob(ctx context.Context, d ocispec.Descriptor, w io.Writer) error {
	return r.Client.FetchBlob(ctx, r.Ref, d, w)
}

func (r Remote) Name() string { return r.Ref.String() }

func (r Remote) Pinned(d ocispec.Descriptor) string { return r.Ref.WithDigest(d.Digest).String() }

// Layout is a Source backed by an OCI layout directory or tarball.
type Layout struct {
	Path  string
	Store layout.Store
	Root  ocispec.Descriptor
}

// OpenLayout opens "PATH[:TAG]" as a Source.
func OpenLayout(ctx context.Context, spec string) (*Layout, error) {
	store, root, err := layout.Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	path, _ := layout.Split(spec)
	return &Layout{Path: path, Store: store, Root: root}, nil
}

func (l *Layout) Resolve(context.Context) (ocispec.Descriptor, error) { return l.Root, nil }

func (l *Layout) FetchManifest(ctx context.Context, d ocispec.Descriptor) ([]byte, error) {
	return l.FetchBlobBytes(ctx, d, 4<<20)
}

func (l *Layout) FetchBlobBytes(ctx context.Context, d ocispec.Descriptor, max int64) ([]byte, error) {
	if d.Size > max {
		return nil, fmt.Errorf("%s: blob %s is %d bytes, more than the limit of %d: %w", l.Path, d.Digest, d.Size, max, registry.ErrTooLarge)
	}
	var buf bytes.Buffer
	if err := l.FetchBlob(ctx, d, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (l *Layout) FetchBlob(ctx context.Context, d ocispec.Descriptor, w io.Writer) error {
	rc, err := l.Store.Fetch(ctx, d)
	if err != nil {
		return fmt.Errorf("%s: blob %s: %w", l.Path, d.Digest, err)
	}
	defer rc.Close()
	vr := content.NewVerifyReader(rc, d)
	if _, err := io.Copy(w, vr); err != nil {
		return fmt.Errorf("%s: blob %s: %w", l.Path, d.Digest, err)
	}
	if err := vr.Verify(); err != nil {
		return fmt.Errorf("%s: blob %s: %w: %w", l.Path, d.Digest, errdef.ErrDigestMismatch, err)
	}
	return nil
}

func (l *Layout) Name() string { return l.Path }

func (l *Layout) Pinned(d ocispec.Descriptor) string { return l.Path + "@" + d.Digest.String() }
