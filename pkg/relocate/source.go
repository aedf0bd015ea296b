package relocate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/errdef"

	"github.com/addonpack/addonpack/pkg/registry"
)

// graphSource is where a copy reads from: content by digest, tags and
// referrers.
type graphSource interface {
	content.ReadOnlyStorage
	// resolveTag returns the manifest tagged tag; ok is false when there is none.
	resolveTag(ctx context.Context, tag string) (d ocispec.Descriptor, ok bool, err error)
	// referrers lists the manifests whose subject is subject, at most max.
	referrers(ctx context.Context, subject ocispec.Descriptor, max int) ([]ocispec.Descriptor, error)
}

// manifestTypes are fetched as manifests; everything else as blobs.
var manifestTypes = map[string]bool{
	ocispec.MediaTypeImageManifest:                              true,
	ocispec.MediaTypeImageIndex:                                 true,
	"application/vnd.docker.distribution.manifest.v2+json":      true,
	"application/vnd.docker.distribution.manifest.list.v2+json": true,
	"application/vnd.oci.artifact.manifest.v1+json":             true,
}

// remoteSource reads a repository through the registry client; every byte is
// checked against its descriptor by the client. With a memo, manifests and
// small blobs are read from the registry once per copy.
type remoteSource struct {
	c    *registry.Client
	ref  registry.Reference
	memo *memo
}

func (r remoteSource) Fetch(ctx context.Context, d ocispec.Descriptor) (io.ReadCloser, error) {
	var fetch func() ([]byte, error)
	switch {
	case manifestTypes[d.MediaType]:
		fetch = func() ([]byte, error) { return r.c.FetchManifest(ctx, r.ref, d) }
	case r.memo != nil && d.Size <= memoMax:
		fetch = func() ([]byte, error) { return fetchBytes(ctx, r.c, r.ref, d) }
	}
	if fetch != nil {
		b, err := r.memo.read(d, fetch)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(r.c.FetchBlob(ctx, r.ref, d, pw)) }()
	return pr, nil
}

func (r remoteSource) Exists(ctx context.Context, d ocispec.Descriptor) (bool, error) {
	return true, nil // only asked of destinations by oras.CopyGraph
}

func (r remoteSource) resolveTag(ctx context.Context, tag string) (ocispec.Descriptor, bool, error) {
	ref := r.ref
	ref.Tag, ref.Digest = tag, ""
	d, err := r.c.Resolve(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) {
		return ocispec.Descriptor{}, false, nil
	}
	return d, err == nil, err
}

func (r remoteSource) referrers(ctx context.Context, subject ocispec.Descriptor, max int) ([]ocispec.Descriptor, error) {
	ref := r.ref
	ref.Tag, ref.Digest = "", ""
	list, truncated, err := r.c.Referrers(ctx, ref, subject, "", max)
	if err != nil {
		return nil, err
	}
	if truncated {
		return nil, fmt.Errorf("%s: more than %d referrers of %s: %w", ref, max, subject.Digest, ErrTooMany)
	}
	return list, nil
}

// layoutSource reads an OCI image layout (directory or tarball).
type layoutSource struct {
	*oci.ReadOnlyStore
	path string
}

func (l layoutSource) resolveTag(ctx context.Context, tag string) (ocispec.Descriptor, bool, error) {
	d, err := l.Resolve(ctx, tag)
	if errors.Is(err, errdef.ErrNotFound) {
		return ocispec.Descriptor{}, false, nil
	}
	if err != nil {
		return ocispec.Descriptor{}, false, fmt.Errorf("%s: tag %q: %w", l.path, tag, err)
	}
	return d, true, nil
}

// referrers are the manifests of the layout's index whose subject is subject.
func (l layoutSource) referrers(ctx context.Context, subject ocispec.Descriptor, max int) ([]ocispec.Descriptor, error) {
	preds, err := l.Predecessors(ctx, subject)
	if err != nil {
		return nil, fmt.Errorf("%s: referrers of %s: %w", l.path, subject.Digest, err)
	}
	var out []ocispec.Descriptor
	for _, p := range preds {
		if !manifestTypes[p.MediaType] {
			continue
		}
		b, err := content.FetchAll(ctx, l, p)
		if err != nil {
			return nil, fmt.Errorf("%s: manifest %s: %w", l.path, p.Digest, err)
		}
		var m struct {
			Subject *ocispec.Descriptor `json:"subject"`
		}
		if json.Unmarshal(b, &m) != nil || m.Subject == nil || m.Subject.Digest != subject.Digest {
			continue // an index or manifest that lists subject, not a referrer
		}
		if len(out) == max {
			return nil, fmt.Errorf("%s: more than %d referrers of %s: %w", l.path, max, subject.Digest, ErrTooMany)
		}
		out = append(out, p)
	}
	return out, nil
}
