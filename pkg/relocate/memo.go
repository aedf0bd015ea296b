package relocate

import (
	"bytes"
	"context"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/registry"
)

// memoMax bounds a blob a copy keeps in memory once read: manifests, config
// blobs, signature payloads and bundles are read by the plan, the
// verification, the binding and the push in turn; a content layer is
// larger and streamed each time it is read.
const memoMax = 1 << 20

// memo holds, for one copy, the manifests and small blobs read from its
// source, by digest. What is kept was checked against its descriptor by the
// registry client (size and digest) before it is stored, so a later read
// returns the same verified bytes without asking the registry again — and
// the verification and the push cannot be served different bytes for one
// digest.
type memo struct {
	mu sync.Mutex
	b  map[digest.Digest][]byte
}

func newMemo() *memo { return &memo{b: map[digest.Digest][]byte{}} }

// get returns the bytes of d when they were read before (nil memo: never).
func (m *memo) get(d ocispec.Descriptor) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.b[d.Digest]
	return b, ok && int64(len(b)) == d.Size
}

// read returns d's bytes from the memo, or from fetch (which must check them
// against d) and then keeps them if they are small enough.
func (m *memo) read(d ocispec.Descriptor, fetch func() ([]byte, error)) ([]byte, error) {
	if b, ok := m.get(d); ok {
		return b, nil
	}
	b, err := fetch()
	if err != nil || m == nil || d.Size > memoMax {
		return b, err
	}
	m.mu.Lock()
	m.b[d.Digest] = b
	m.mu.Unlock()
	return b, nil
}

// memoArtifact is artifact.Remote reading manifests and small blobs
// through a copy's memo, for the binding of the copied add-on.
type memoArtifact struct {
	artifact.Remote
	m *memo
}

func (a memoArtifact) FetchManifest(ctx context.Context, d ocispec.Descriptor) ([]byte, error) {
	return a.m.read(d, func() ([]byte, error) { return a.Remote.FetchManifest(ctx, d) })
}

func (a memoArtifact) FetchBlobBytes(ctx context.Context, d ocispec.Descriptor, max int64) ([]byte, error) {
	if d.Size > max {
		return a.Remote.FetchBlobBytes(ctx, d, max) // refused there, with its error
	}
	return a.m.read(d, func() ([]byte, error) { return a.Remote.FetchBlobBytes(ctx, d, max) })
}

// fetchBytes reads a small blob whole through the client (checked against
// d), for the memo.
func fetchBytes(ctx context.Context, c *registry.Client, ref registry.Reference, d ocispec.Descriptor) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(d.Size))
	if err := c.FetchBlob(ctx, ref, d, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
