package consume_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/bench/gen"
	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

// benchPublish generates shape, builds it and pushes it to a testregistry;
// all of it outside the timed region.
func benchPublish(b *testing.B, s gen.Shape) (artifact.Remote, int64) {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	n, err := gen.Write(dir, s)
	if err != nil {
		b.Fatal(err)
	}
	store := memory.New()
	res, err := build.Build(ctx, dir, store, build.Options{})
	if err != nil {
		b.Fatal(err)
	}
	reg := testregistry.New(b)
	c, err := registry.New(registry.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ref, err := registry.ParseReference(reg.Host() + "/bench/" + s.Name + ":1.0.0")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
		b.Fatal(err)
	}
	return artifact.Remote{Client: c, Ref: ref}, n
}

// BenchmarkPull measures consume.Pull (resolve, manifest + config, spool the
// content layer, safe extract, rename into place) from an in-process
// testregistry, with no verification hook: uncached, and through a warm
// blob cache (resolve only, blobs re-hashed from disk). The large shape is
// built with its CRDs unlisted (bench/gen Unlisted): the same bytes, without
// the minute-long kustomize check in setup.
func BenchmarkPull(b *testing.B) {
	large := gen.Large()
	large.Unlisted = true
	for _, s := range []gen.Shape{gen.Small("small", 1), large} {
		for _, cached := range []bool{false, true} {
			name := s.Name + "/uncached"
			if cached {
				name = s.Name + "/cached"
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				remote, size := benchPublish(b, s)
				var src artifact.Source = remote
				if cached {
					ch, err := cache.Open(b.TempDir())
					if err != nil {
						b.Fatal(err)
					}
					src = cache.Source{Inner: remote, Cache: ch}
					if _, err := consume.Pull(ctx, src, filepath.Join(b.TempDir(), "warm"), consume.PullOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				limits := archive.DefaultLimits()
				parent := b.TempDir()
				b.SetBytes(size)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := consume.Pull(ctx, src, filepath.Join(parent, fmt.Sprint(i)), consume.PullOptions{Limits: &limits}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// spoolOnly hides cache.Source's OpenBlob (and nothing else): pull then
// copies the cached content layer into the staging directory and extracts
// the copy, as it did before extracting from the cache in place.
type spoolOnly struct{ artifact.ManifestResolver }

// BenchmarkPullCache compares, in one run, the two ways a pull through the
// cache gets the content layer into the tree: "spool" copies the cached,
// checked blob into the staging directory and extracts the copy;
// "in-place" extracts the cached blob directly, hashing it as it is read.
// cold starts each pull with an empty cache (fetch, store, extract); warm
// has the blobs cached.
func BenchmarkPullCache(b *testing.B) {
	large := gen.Large()
	large.Unlisted = true
	for _, s := range []gen.Shape{gen.Small("small", 1), large} {
		remote, size := benchPublish(b, s)
		for _, warm := range []bool{false, true} {
			for _, inPlace := range []bool{false, true} {
				name := s.Name + map[bool]string{false: "/cold", true: "/warm"}[warm] + map[bool]string{false: "/spool", true: "/in-place"}[inPlace]
				b.Run(name, func(b *testing.B) {
					ctx := context.Background()
					source := func() artifact.Source {
						ch, err := cache.Open(b.TempDir())
						if err != nil {
							b.Fatal(err)
						}
						src := cache.Source{Inner: remote, Cache: ch}
						if inPlace {
							return src
						}
						return spoolOnly{src}
					}
					src := source()
					if warm {
						if _, err := consume.Pull(ctx, src, filepath.Join(b.TempDir(), "warm"), consume.PullOptions{}); err != nil {
							b.Fatal(err)
						}
					}
					parent := b.TempDir()
					b.SetBytes(size)
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if !warm {
							b.StopTimer()
							src = source()
							b.StartTimer()
						}
						if _, err := consume.Pull(ctx, src, filepath.Join(parent, fmt.Sprint(i)), consume.PullOptions{}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
