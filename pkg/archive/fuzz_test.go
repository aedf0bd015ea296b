package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzLimits are small so that the fuzzer reaches them.
var fuzzLimits = Limits{MaxEntries: 50, MaxFileSize: 1 << 16, MaxTotalSize: 1 << 18, MaxPathLength: 200, MaxDepth: 8}

// FuzzExtract feeds raw blobs (gzip layer included) to Extract.
func FuzzExtract(f *testing.F) {
	// A valid archive made by Write.
	dir := f.TempDir()
	writeTree(f, dir, map[string]tfile{
		"a.yaml": {content: "a: 1\n"}, "sub/b.sh": {content: "#!/bin/sh\n", exec: true}, "sub/deeper/c": {content: "c"},
	}, nil, 0o644)
	f.Add(pack(f, dir))
	// Hostile ones.
	for _, entries := range [][]entry{
		{reg("../x", "evil")},
		{reg("/etc/x", "evil")},
		{{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "/"}}, reg("l/x", "evil")},
		{{hdr: tar.Header{Typeflag: tar.TypeLink, Name: "h", Linkname: "/etc/passwd"}}},
		{reg("A", "1"), reg("a", "2")},
		{reg("a", "1"), reg("a/b", "2")},
		{dirEntry("./"), dirEntry("d/"), reg("d/x", "x"), reg("./d//y", "y")},
		{{hdr: tar.Header{Typeflag: '\x00', Name: "legacy", Mode: 0o777, Size: 1}, content: "l"}},
	} {
		f.Add(gz(f, rawTar(f, entries)))
	}
	f.Add(append(gz(f, rawTar(f, []entry{reg("a", "1")})), "trailing"...))
	f.Add([]byte{})

	f.Fuzz(func(t *testing.T, blob []byte) { checkExtract(t, blob, fuzzLimits) })
}

// FuzzExtractTar fuzzes the tar layer: the input is gzipped first, so the
// mutations reach headers, names and content instead of dying in gzip.
func FuzzExtractTar(f *testing.F) {
	for _, entries := range [][]entry{
		{dirEntry("sub/"), reg("a.yaml", "a: 1\n"), reg("sub/b.sh", "#!/bin/sh\n")},
		{reg("../x", "evil")},
		{{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "/"}}, reg("l/x", "evil")},
		{reg("A", "1"), reg("a", "2")},
		{reg("a", "1"), reg("a/b", "2")},
		{dirEntry("./"), dirEntry("d/"), reg("d/x", "x"), reg("./d//y", "y")},
		{reg(strings.Repeat("long/", 30)+"x", "deep and long: PAX")},
	} {
		f.Add(rawTar(f, entries))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkExtract(t, gz(t, raw), fuzzLimits) })
}

// checkExtract extracts blob next to an empty sibling and checks that
// nothing is written outside, errors carry a sentinel, and a successful
// extraction matches its Stats and limits.
func checkExtract(t *testing.T, blob []byte, limits Limits) {
	base := t.TempDir()
	out := filepath.Join(base, "out")
	sibling := filepath.Join(base, "sibling")
	must(t, os.Mkdir(out, 0o755))
	must(t, os.Mkdir(sibling, 0o755))
	st, err := Extract(context.Background(), bytes.NewReader(blob), int64(len(blob)), out, limits)
	assertOnlyInside(t, base)
	if ents, _ := os.ReadDir(sibling); len(ents) != 0 {
		t.Fatal("wrote next to the output dir")
	}
	if err != nil {
		known := false
		for _, s := range []error{ErrUnsafePath, ErrEntryType, ErrDuplicate, ErrLimit, ErrFormat} {
			known = known || errors.Is(err, s)
		}
		if !known {
			t.Fatalf("error without sentinel: %v", err)
		}
		return
	}
	got := readTree(t, out)
	var total int64
	for _, f := range got {
		total += int64(len(f.content))
	}
	if st.Files != len(got) || st.Bytes != total || total > limits.MaxTotalSize || st.Files+st.Dirs > limits.MaxEntries {
		t.Fatalf("stats %+v for %d files, %d bytes", st, len(got), total)
	}
}
