package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/addonpack/addonpack/bench/gen"
)

// These complement archive_bench_test.go (in-memory files, ~40 MB) with the
// benchmark harness's add-on shapes read from disk through Scan, as a build
// reads them, and with the consume target's baseline: gunzip+untar of the
// same layer with no checks and no writes.

func shapeDir(b *testing.B, s gen.Shape) (string, []File) {
	b.Helper()
	dir := b.TempDir()
	if _, err := gen.Write(dir, s); err != nil {
		b.Fatal(err)
	}
	files, err := Scan(dir, DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	return dir, files
}

func shapes() []gen.Shape { return []gen.Shape{gen.Small("small", 1), gen.Large()} }

// BenchmarkScanShapes measures walking and stat-ing the source tree.
func BenchmarkScanShapes(b *testing.B) {
	for _, s := range shapes() {
		b.Run(s.Name, func(b *testing.B) {
			dir, _ := shapeDir(b, s)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Scan(dir, DefaultLimits()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteShapes measures Write (tar + klauspost gzip level 6, one
// goroutine) reading the files from disk, into a reused buffer.
func BenchmarkWriteShapes(b *testing.B) {
	for _, s := range shapes() {
		b.Run(s.Name, func(b *testing.B) {
			_, files := shapeDir(b, s)
			b.SetBytes(totalSize(files))
			b.ReportAllocs()
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if err := Write(context.Background(), &out, files); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.Len()), "compressed-bytes")
		})
	}
}

func shapeLayer(b *testing.B, s gen.Shape) ([]byte, int64) {
	_, files := shapeDir(b, s)
	var blob bytes.Buffer
	if err := Write(context.Background(), &blob, files); err != nil {
		b.Fatal(err)
	}
	return blob.Bytes(), totalSize(files)
}

// BenchmarkExtractShapes measures the safe Extract of the packed layer into
// a fresh directory per iteration (directory removal is not timed).
func BenchmarkExtractShapes(b *testing.B) {
	for _, s := range shapes() {
		b.Run(s.Name, func(b *testing.B) {
			blob, size := shapeLayer(b, s)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				b.StartTimer()
				if _, err := Extract(context.Background(), bytes.NewReader(blob), int64(len(blob)), dir, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGunzipUntar is the floor for Extract: decompress and walk the tar
// stream to io.Discard, with the standard library and with klauspost.
func BenchmarkGunzipUntar(b *testing.B) {
	blob, size := shapeLayer(b, gen.Large())
	for _, impl := range []string{"stdlib", "klauspost"} {
		b.Run(impl, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				var zr io.Reader
				var err error
				if impl == "stdlib" {
					zr, err = gzip.NewReader(bytes.NewReader(blob))
				} else {
					zr, err = kgzip.NewReader(bytes.NewReader(blob))
				}
				if err != nil {
					b.Fatal(err)
				}
				tr := tar.NewReader(zr)
				for {
					_, err := tr.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, tr); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
