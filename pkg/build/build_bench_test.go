package build_test

import (
	"context"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/bench/gen"
	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/build"
)

// benchTree writes the generated add-on for shape (bench/gen: deterministic)
// under the benchmark's temporary directory, outside any timed region.
func benchTree(b *testing.B, s gen.Shape) string {
	b.Helper()
	d := b.TempDir()
	if _, err := gen.Write(d, s); err != nil {
		b.Fatal(err)
	}
	return d
}

func treeBytes(s gen.Shape) int64 { return s.Bytes }

// BenchmarkBuild measures build.Build (scan, read, schema + defaults check,
// kustomize render checks, pack, push into an in-memory store) for the
// harness's small and large add-ons, and for the large one with its CRDs
// packed but not listed in the kustomization ("large-unrendered"), which
// separates packing from kustomize validation.
func BenchmarkBuild(b *testing.B) {
	large := gen.Large()
	unrendered := gen.Large()
	unrendered.Name, unrendered.Unlisted = "large-unrendered", true
	for _, s := range []gen.Shape{gen.Small("small", 1), large, unrendered} {
		b.Run(s.Name, func(b *testing.B) {
			dir := benchTree(b, s)
			b.SetBytes(treeBytes(s))
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if _, err := build.Build(ctx, dir, memory.New(), build.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadTree measures scanning and reading the tree into memory alone
// (the fstest.MapFS every build holds).
func BenchmarkLoadTree(b *testing.B) {
	for _, s := range []gen.Shape{gen.Small("small", 1), gen.Large()} {
		b.Run(s.Name, func(b *testing.B) {
			dir := benchTree(b, s)
			b.SetBytes(treeBytes(s))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := build.LoadTree(dir, archive.DefaultLimits()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
