package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"
)

func TestDigests(t *testing.T) {
	dir := t.TempDir()
	files := map[string]tfile{"a.yaml": {content: "a: 1\n"}, "sub/b.sh": {content: "#!/bin/sh\n", exec: true}, "sub/deeper/c": {content: ""}}
	writeTree(t, dir, files, nil, 0o644)
	blob := pack(t, dir)
	got, err := Digests(context.Background(), bytes.NewReader(blob), int64(len(blob)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(files) {
		t.Fatalf("%d files, want %d: %+v", len(got), len(files), got)
	}
	for _, f := range got {
		want := files[f.Path].content
		if f.Digest != digest.FromString(want) || f.Size != int64(len(want)) {
			t.Errorf("%s: %s (%d bytes), want %s", f.Path, f.Digest, f.Size, digest.FromString(want))
		}
	}
	for _, tc := range []struct {
		name    string
		entries []entry
		want    error
	}{
		{"symlink", []entry{{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "/"}}}, ErrEntryType},
		{"escape", []entry{reg("../x", "evil")}, ErrUnsafePath},
		{"duplicate", []entry{reg("A", "1"), reg("a", "2")}, ErrDuplicate},
		{"too large", []entry{reg("big", string(make([]byte, 2048)))}, ErrLimit},
		// Extract's header checks, shared through checkHeader: Digests
		// refuses what Extract refuses.
		{"tool metadata", []entry{reg(".git/config", "[core]\n")}, ErrUnsafePath},
		{"directory with size", []entry{retype(reg("d", "abc"), tar.TypeDir)}, ErrFormat},
		{"root as a file", []entry{reg(".", "x")}, ErrUnsafePath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := gz(t, rawTar(t, tc.entries))
			_, err := Digests(context.Background(), bytes.NewReader(b), int64(len(b)), Limits{MaxFileSize: 1024})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := Digests(context.Background(), bytes.NewReader([]byte("not gzip")), 8, Limits{}); !errors.Is(err, ErrFormat) {
		t.Errorf("not gzip: %v", err)
	}
}

// FuzzDigests: whatever Extract unpacks, Digests lists with the digests of
// the files unpacked; its errors carry a sentinel.
func FuzzDigests(f *testing.F) {
	for _, entries := range [][]entry{
		{dirEntry("sub/"), reg("a.yaml", "a: 1\n"), reg("sub/b.sh", "#!/bin/sh\n")},
		{reg("../x", "evil")},
		{reg("A", "1"), reg("a", "2")},
		{dirEntry("./"), dirEntry("d/"), reg("d/x", "x"), reg("./d//y", "y")},
	} {
		f.Add(rawTar(f, entries))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		blob := gz(t, raw)
		got, err := Digests(context.Background(), bytes.NewReader(blob), int64(len(blob)), fuzzLimits)
		if err != nil {
			known := false
			for _, s := range []error{ErrUnsafePath, ErrEntryType, ErrDuplicate, ErrLimit, ErrFormat} {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("error without sentinel: %v", err)
			}
		}
		out := filepath.Join(t.TempDir(), "out")
		must(t, os.Mkdir(out, 0o755))
		if _, xerr := Extract(context.Background(), bytes.NewReader(blob), int64(len(blob)), out, fuzzLimits); xerr != nil {
			return
		}
		if err != nil {
			t.Fatalf("Extract unpacks what Digests refuses: %v", err)
		}
		tree := readTree(t, out)
		if len(tree) != len(got) {
			t.Fatalf("Digests lists %d files, Extract unpacked %d", len(got), len(tree))
		}
		for _, fd := range got {
			if digest.FromString(tree[fd.Path].content) != fd.Digest {
				t.Fatalf("%s: digest %s differs from the unpacked file", fd.Path, fd.Digest)
			}
		}
	})
}
