package build

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/spec"
)

// packed is a layer written to a temporary file, with the digest of every
// file's content as it went into the layer. Nothing of the tree stays in
// memory: the checks that follow read what they need through packedTree,
// which holds the files to these digests.
type packed struct {
	path string             // the tar+gzip layer
	desc ocispec.Descriptor // its descriptor
	sums map[string][]byte  // package path -> sha256 of the packed content
}

// remove deletes the layer file (a no-op once it has been handed over).
func (p *packed) remove() {
	if p.path != "" {
		os.Remove(p.path)
	}
}

// pack streams the scanned files from disk into a tar+gzip layer in a new
// file under dir, hashing the layer as it is written and each file as it is
// read: one read of every file. On error nothing is left in dir.
func (s *source) pack(ctx context.Context, dir string, limits archive.Limits) (_ *packed, err error) {
	f, err := os.CreateTemp(dir, ".addonpack-layer-*")
	if err != nil {
		return nil, fmt.Errorf("packing %s: %w", s.dir, err)
	}
	p := &packed{path: f.Name(), sums: make(map[string][]byte, len(s.files))}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("packing %s: %w", s.dir, cerr)
		}
		if err != nil {
			p.remove()
		}
	}()

	count := func(int) {}
	if s.progress != nil {
		var read, total int64
		for _, file := range s.files {
			total += file.Size
		}
		s.progress(0, total)
		count = func(n int) { read += int64(n); s.progress(read, total) }
	}
	files := make([]archive.File, len(s.files))
	for i, file := range s.files {
		open := file.Open
		path := file.Path
		file.Open = func() (io.ReadCloser, error) {
			rc, err := open()
			if err != nil {
				return nil, err
			}
			return &summingReader{rc: rc, h: sha256.New(), count: count, done: func(sum []byte) { p.sums[path] = sum }}, nil
		}
		files[i] = file
	}
	layer := digest.SHA256.Digester()
	counted := &countingWriter{w: io.MultiWriter(f, layer.Hash())}
	bw := bufio.NewWriterSize(counted, 256<<10)
	if err := archive.WriteLimits(ctx, bw, files, limits); err != nil {
		return nil, fmt.Errorf("packing %s: %w", s.dir, err)
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("packing %s: %w", s.dir, err)
	}
	p.desc = ocispec.Descriptor{MediaType: spec.ContentMediaType, Digest: layer.Digest(), Size: counted.n,
		Annotations: map[string]string{spec.AnnotationTitle: spec.ContentTitle}}
	return p, nil
}

// summingReader hashes and counts what is read and reports the sum on Close.
type summingReader struct {
	rc    io.ReadCloser
	h     hash.Hash
	count func(n int)
	done  func([]byte)
}

func (r *summingReader) Read(b []byte) (int, error) {
	n, err := r.rc.Read(b)
	r.h.Write(b[:n])
	r.count(n)
	return n, err
}

func (r *summingReader) Close() error {
	r.done(r.h.Sum(nil))
	return r.rc.Close()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
