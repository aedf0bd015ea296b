package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/archive"
)

// smallTree is the shape of a small add-on: 15 files of a few KB in three
// directories.
func smallTree() []archive.File {
	var files []archive.File
	for i := 0; i < 15; i++ {
		body := strings.Repeat(fmt.Sprintf("line %d of a manifest: value\n", i), 100+i*10)
		files = append(files, archive.File{Path: fmt.Sprintf("dir%d/file%02d.yaml", i%3, i), Size: int64(len(body)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }})
	}
	return files
}

// TestDigestsAllocs bounds the allocations of digesting a small package
// (what push --sbom does per artifact): about 30 per entry today (its
// header, the path checks, the digest), plus the gzip and tar readers once.
// A change that adds several allocations per file, or one per block read
// of a larger file, fails it.
func TestDigestsAllocs(t *testing.T) {
	var buf bytes.Buffer
	if err := archive.Write(context.Background(), &buf, smallTree()); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	ctx, limits := context.Background(), archive.DefaultLimits()
	allocs := testing.AllocsPerRun(20, func() {
		out, err := archive.Digests(ctx, bytes.NewReader(data), int64(len(data)), limits)
		if err != nil || len(out) != 15 {
			t.Fatalf("Digests: %d files, %v", len(out), err)
		}
	})
	t.Logf("%.0f allocations per Digests of 15 files", allocs)
	// 452 today (501 with -race): the bound leaves room for the race
	// detector and a Go release.
	if allocs > 540 {
		t.Errorf("%.0f allocations per Digests of 15 files, want at most 540", allocs)
	}
}
