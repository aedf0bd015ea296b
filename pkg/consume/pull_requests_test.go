package consume_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/testregistry"
)

// requests renders the registry log as sorted "METHOD what" lines, naming
// the manifest, config and layer digests (config and layer are fetched
// concurrently, so their order varies).
func requests(reg *testregistry.Registry, built *build.Result, config string) []string {
	names := strings.NewReplacer(
		built.Manifest.Digest.String(), "MANIFEST",
		built.Layers[0].Digest.String(), "LAYER",
		config, "CONFIG",
	)
	var out []string
	for _, r := range reg.Log() {
		out = append(out, r.Method+" "+names.Replace(r.Path[strings.LastIndex(r.Path[:strings.LastIndex(r.Path, "/")], "/")+1:]))
	}
	slices.Sort(out)
	return out
}

// TestPullRequests pins the requests of a pull, from the registry's log:
// resolving returns the manifest (one GET, no HEAD then GET), then only the
// config and the layer, by digest. A warm cache resolves with one HEAD and
// reads the rest from disk.
func TestPullRequests(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	ref, built, c := publish(t, reg.Host())
	warm, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	warmSrc := cache.Source{Inner: artifact.Remote{Client: c, Ref: ref}, Cache: warm}
	first, err := consume.Pull(ctx, warmSrc, filepath.Join(t.TempDir(), "warm"), consume.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	config := first.Config.Digest.String()
	pinned := ref
	pinned.Tag = ""
	pinned = pinned.WithDigest(built.Manifest.Digest)
	cold := func(t *testing.T) *cache.Cache {
		ch, err := cache.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	tests := []struct {
		name string
		src  func(t *testing.T) artifact.Source
		want []string
	}{
		{"by tag, no cache", func(*testing.T) artifact.Source { return artifact.Remote{Client: c, Ref: ref} },
			[]string{"GET blobs/CONFIG", "GET blobs/LAYER", "GET manifests/0.1.0"}},
		{"by digest, no cache", func(*testing.T) artifact.Source { return artifact.Remote{Client: c, Ref: pinned} },
			[]string{"GET blobs/CONFIG", "GET blobs/LAYER", "GET manifests/MANIFEST"}},
		{"by tag, cold cache", func(t *testing.T) artifact.Source {
			return cache.Source{Inner: artifact.Remote{Client: c, Ref: ref}, Cache: cold(t)}
		}, []string{"GET blobs/CONFIG", "GET blobs/LAYER", "GET manifests/0.1.0"}},
		{"by tag, warm cache", func(*testing.T) artifact.Source { return warmSrc },
			[]string{"HEAD manifests/0.1.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src(t)
			reg.ResetLog()
			out := filepath.Join(t.TempDir(), "out")
			if _, err := consume.Pull(ctx, src, out, consume.PullOptions{}); err != nil {
				t.Fatal(err)
			}
			assertSameTree(t, helloExample, out)
			if got := requests(reg, built, config); !slices.Equal(got, tt.want) {
				t.Errorf("requests %q, want %q", got, tt.want)
			}
		})
	}
}

// TestConfigFailureStopsTheLayer: the config and the layer are fetched
// concurrently; wrong config bytes fail the pull with the config's digest,
// and nothing is left behind, staging included.
func TestConfigFailureStopsTheLayer(t *testing.T) {
	st := testregistry.NewMemoryStorage()
	reg := testregistry.New(t, testregistry.WithStorage(st))
	ref, _, c := publish(t, reg.Host())
	loaded, err := consume.Load(context.Background(), artifact.Remote{Client: c, Ref: ref}, consume.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loaded.Config.Digest.String()
	for name, kind := range map[string]testregistry.FaultKind{"wrong bytes": testregistry.WrongBytes, "truncated": testregistry.Truncate} {
		t.Run(name, func(t *testing.T) {
			bad := testregistry.New(t, testregistry.WithStorage(st), testregistry.WithFaults(testregistry.Faults{Rules: []testregistry.FaultRule{
				{Match: testregistry.MatchPath(cfg), Kind: kind},
			}}))
			r := ref
			r.Registry = bad.Host()
			parent := t.TempDir()
			_, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: r}, filepath.Join(parent, "out"), consume.PullOptions{})
			if !(errors.Is(err, errdef.ErrDigestMismatch) || errors.Is(err, errdef.ErrSizeMismatch)) || !strings.Contains(err.Error(), cfg) {
				t.Fatalf("got %v, want a digest or size mismatch naming the config %s", err, cfg)
			}
			assertOnly(t, parent)
		})
	}
}
