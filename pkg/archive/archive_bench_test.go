package archive

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
)

// benchFiles returns ~40 MB of generated YAML (Kubernetes-like manifests)
// in 400 files of ~100 KB.
var benchFiles = sync.OnceValue(func() []File {
	var files []File
	for i := 0; i < 400; i++ {
		var b strings.Builder
		for j := 0; b.Len() < 100_000; j++ {
			fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%d-%d
  namespace: ns-%d
  labels:
    app.kubernetes.io/name: app-%d
    app.kubernetes.io/version: "1.%d.%d"
spec:
  replicas: %d
  template:
    spec:
      containers:
        - name: main
          image: registry.example.com/team-%d/app@sha256:%064x
          args: ["--port=%d", "--log-level=info"]
          resources:
            limits: {cpu: "%dm", memory: "%dMi"}
`, i, j, i%17, j, i%9, j%31, j%5+1, i%13, uint64(i)*2654435761+uint64(j)*40503, 8000+j%1000, 100+j%900, 64+j%512)
		}
		content := b.String()
		files = append(files, File{
			Path: fmt.Sprintf("manifests/group-%02d/app-%03d.yaml", i%20, i),
			Size: int64(len(content)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil },
		})
	}
	return files
})

func totalSize(files []File) (n int64) {
	for _, f := range files {
		n += f.Size
	}
	return n
}

func benchmarkWrite(b *testing.B, compressor func(io.Writer) (io.WriteCloser, error)) {
	files := benchFiles()
	b.SetBytes(totalSize(files))
	var out bytes.Buffer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out.Reset()
		if err := write(context.Background(), &out, files, DefaultLimits(), compressor); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(totalSize(files))/float64(out.Len()), "ratio")
	b.ReportMetric(float64(out.Len()), "compressed-bytes")
}

func BenchmarkWriteKlauspost(b *testing.B) {
	benchmarkWrite(b, func(w io.Writer) (io.WriteCloser, error) { return newKlauspost(w) })
}

func BenchmarkWriteStdlib(b *testing.B) {
	benchmarkWrite(b, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, 6) })
}

func BenchmarkExtract(b *testing.B) {
	files := benchFiles()
	var blob bytes.Buffer
	if err := Write(context.Background(), &blob, files); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(totalSize(files))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		if _, err := Extract(context.Background(), bytes.NewReader(blob.Bytes()), int64(blob.Len()), dir, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteLevels compares klauspost levels (for choosing
// CompressionLevel; changing it changes every digest).
func BenchmarkWriteLevels(b *testing.B) {
	for _, level := range []int{1, 4, 5, 6, 7, 9} {
		b.Run(fmt.Sprint(level), func(b *testing.B) {
			benchmarkWrite(b, func(w io.Writer) (io.WriteCloser, error) { return kgzip.NewWriterLevel(w, level) })
		})
	}
}
