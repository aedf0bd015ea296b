package consume_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/testregistry"
)

// TestCachedPullFetchesNoBlob pulls twice through the cache and asserts on the
// registry's request log that the second pull fetched no blob and no
// manifest, only resolved the tag; then pulls offline from the cache alone.
func TestCachedPullFetchesNoBlob(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	ref, _, c := publish(t, reg.Host())
	ch, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := cache.Source{Inner: artifact.Remote{Client: c, Ref: ref}, Cache: ch}
	if _, err := consume.Pull(ctx, src, filepath.Join(t.TempDir(), "a"), consume.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	reg.ResetLog()
	out := filepath.Join(t.TempDir(), "b")
	if _, err := consume.Pull(ctx, src, out, consume.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	assertSameTree(t, helloExample, out)
	for _, r := range reg.Log() {
		if r.Method == http.MethodGet || strings.Contains(r.Path, "/blobs/") {
			t.Errorf("cached pull made a content request: %s %s", r.Method, r.Path)
		}
	}
	if len(reg.Log()) != 1 {
		t.Errorf("cached pull made %d requests, want the one resolve: %+v", len(reg.Log()), reg.Log())
	}

	// Offline: no request at all.
	reg.ResetLog()
	offline := cache.Source{Inner: artifact.Remote{Client: c, Ref: ref}, Cache: ch, Offline: true}
	out = filepath.Join(t.TempDir(), "c")
	if _, err := consume.Pull(ctx, offline, out, consume.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	assertSameTree(t, helloExample, out)
	if n := len(reg.Log()); n != 0 {
		t.Errorf("offline pull made %d requests", n)
	}
	other := ref
	other.Tag = "never-pulled"
	_, err = consume.Pull(ctx, cache.Source{Inner: artifact.Remote{Client: c, Ref: other}, Cache: ch, Offline: true}, filepath.Join(t.TempDir(), "d"), consume.PullOptions{})
	if !errors.Is(err, cache.ErrOffline) {
		t.Fatalf("offline pull of an uncached tag: %v", err)
	}
}

func TestVerifyRunsBeforeContent(t *testing.T) {
	reg := testregistry.New(t)
	ref, built, c := publish(t, reg.Host())
	reg.ResetLog()
	refused := errors.New("refused by policy")
	var seen ocispec.Descriptor
	parent := t.TempDir()
	_, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, filepath.Join(parent, "out"), consume.PullOptions{
		Verify: func(_ context.Context, d ocispec.Descriptor) error { seen = d; return refused },
	})
	if !errors.Is(err, refused) {
		t.Fatalf("got %v", err)
	}
	if seen.Digest != built.Manifest.Digest {
		t.Fatalf("Verify saw %s, want %s", seen.Digest, built.Manifest.Digest)
	}
	// Only the resolve of the tag may precede verification (a GET that
	// also returns the manifest, held unparsed): nothing by digest, no blob.
	log := reg.Log()
	if len(log) != 1 || !strings.HasSuffix(log[0].Path, "/manifests/"+ref.Tag) {
		t.Errorf("requests before verification: %+v, want only the resolve of %s", log, ref.Tag)
	}
	assertOnly(t, parent)
}

// TestOfflinePinnedDigest: offline, a reference pinned by digest resolves to
// that digest only; a ref record naming another digest is refused.
func TestOfflinePinnedDigest(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	ref, built, c := publish(t, reg.Host())
	ch, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	online := cache.Source{Inner: artifact.Remote{Client: c, Ref: ref}, Cache: ch}
	if _, err := consume.Pull(ctx, online, filepath.Join(t.TempDir(), "a"), consume.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	pinned := ref
	pinned.Tag = ""
	pinned.Digest = digest.Digest("sha256:" + strings.Repeat("0", 64))
	// Plant a record for the pinned reference that names the real digest.
	if err := ch.SetRef(pinned.String(), ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: built.Manifest.Digest, Size: built.Manifest.Size}); err != nil {
		t.Fatal(err)
	}
	_, err = consume.Pull(ctx, cache.Source{Inner: artifact.Remote{Client: c, Ref: pinned}, Cache: ch, Offline: true}, filepath.Join(t.TempDir(), "b"), consume.PullOptions{})
	if !errors.Is(err, cache.ErrOffline) {
		t.Fatalf("offline pull of a pinned digest used another digest: %v", err)
	}
}

// TestPartialLimits: a Limits value with only some fields set keeps the
// defaults for the others (zero means default), in pull as in extraction.
func TestPartialLimits(t *testing.T) {
	reg := testregistry.New(t)
	ref, _, c := publish(t, reg.Host())
	if _, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, filepath.Join(t.TempDir(), "x"),
		consume.PullOptions{Limits: &archive.Limits{MaxEntries: 100}}); err != nil {
		t.Fatalf("a partial Limits refused a small add-on: %v", err)
	}
}
