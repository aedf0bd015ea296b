package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

func TestRoundTrip(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, goldenTree, nil, 0o600)
	blob := pack(t, src)
	dir, st, err := extractSandbox(t, blob, DefaultLimits())
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	got := readTree(t, dir)
	want := map[string]tfile{}
	var bytes int64
	for p, f := range goldenTree {
		if p != "ignored.tmp" {
			want[p] = f
			bytes += int64(len(f.content))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d files, want %d: %v", len(got), len(want), got)
	}
	for p, f := range want {
		if got[p] != f {
			t.Errorf("%s: got %+v, want %+v", p, got[p], f)
		}
	}
	// dirs: base deep deep/a deep/a/b deep/a/b/c deep/a/b/c/d deep/a/b/c/d/e hooks long long/x...
	if st.Files != len(want) || st.Bytes != bytes || st.Dirs != 10 {
		t.Fatalf("stats %+v", st)
	}
	// Re-packing the extracted tree gives the same bytes.
	if !bytes_equal(pack(t, dir), blob) {
		t.Fatal("repacking the extracted tree changes the bytes")
	}
}

func bytes_equal(a, b []byte) bool { return bytes.Equal(a, b) }

func TestExtractRefuses(t *testing.T) {
	small := Limits{MaxEntries: 5, MaxFileSize: 100, MaxTotalSize: 150, MaxPathLength: 20, MaxDepth: 3}
	tests := []struct {
		name    string
		entries []entry
		limits  Limits
		want    error
		path    string
	}{
		{"dotdot", []entry{reg("../x", "evil")}, small, ErrUnsafePath, "../x"},
		{"absolute", []entry{reg("/etc/x", "evil")}, small, ErrUnsafePath, "/etc/x"},
		{"inner dotdot", []entry{reg("a/../../x", "evil")}, small, ErrUnsafePath, "a/../../x"},
		{"harmless dotdot", []entry{reg("a/../x", "still refused")}, small, ErrUnsafePath, "a/../x"},
		{"backslash", []entry{reg(`..\x`, "evil")}, small, ErrUnsafePath, `..\x`},
		{"drive letter", []entry{reg("C:/x", "evil")}, small, ErrUnsafePath, "C:/x"},
		{"long element", []entry{reg(strings.Repeat("n", 256), "x")}, Limits{}, ErrUnsafePath, strings.Repeat("n", 256)},
		{"control char", []entry{reg("a\x1b[2Jb", "evil")}, small, ErrUnsafePath, `"a\x1b[2Jb"`},
		{"file with slash", []entry{retype(dirEntry("a/"), tar.TypeReg)}, small, ErrUnsafePath, "a/"},
		{"dot file", []entry{retype(dirEntry("./"), tar.TypeReg)}, small, ErrUnsafePath, "./"},
		{"symlink", []entry{{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "/etc/passwd"}}}, small, ErrEntryType, "l"},
		{"hardlink", []entry{reg("a", "x"), {hdr: tar.Header{Typeflag: tar.TypeLink, Name: "h", Linkname: "a"}}}, small, ErrEntryType, "h"},
		{"char device", []entry{{hdr: tar.Header{Typeflag: tar.TypeChar, Name: "null", Devmajor: 1, Devminor: 3}}}, small, ErrEntryType, "null"},
		{"block device", []entry{{hdr: tar.Header{Typeflag: tar.TypeBlock, Name: "sda", Devmajor: 8}}}, small, ErrEntryType, "sda"},
		{"fifo", []entry{{hdr: tar.Header{Typeflag: tar.TypeFifo, Name: "p"}}}, small, ErrEntryType, "p"},
		{"global pax", []entry{{hdr: tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "g", PAXRecords: map[string]string{"comment": "x"}}}}, small, ErrEntryType, "g"},
		{"duplicate", []entry{reg("a", "1"), reg("a", "2")}, small, ErrDuplicate, "a"},
		{"duplicate after cleaning", []entry{reg("a/b", "1"), reg("./a//b", "2")}, small, ErrDuplicate, "./a//b"},
		{"case collision", []entry{reg("A", "1"), reg("a", "2")}, small, ErrDuplicate, "a"},
		{"case collision in dir", []entry{reg("D/x", "1"), reg("d/y", "2")}, small, ErrDuplicate, "d/y"},
		{"file then dir", []entry{reg("a", "1"), dirEntry("a/")}, small, ErrDuplicate, "a"},
		{"dir then file", []entry{dirEntry("a/"), reg("a", "1")}, small, ErrDuplicate, "a"},
		{"file then file below", []entry{reg("a", "1"), reg("a/b", "2")}, small, ErrDuplicate, "a/b"},
		{"dir twice", []entry{dirEntry("a/"), dirEntry("a/")}, small, ErrDuplicate, "a/"},
		{"oversize file", []entry{reg("big", strings.Repeat("x", 101))}, small, ErrLimit, "big"},
		{"total size", []entry{reg("a", strings.Repeat("x", 80)), reg("b", strings.Repeat("x", 80))}, small, ErrLimit, "b"},
		{"too many entries", []entry{reg("a", ""), reg("b", ""), reg("c", ""), reg("d", ""), reg("e", ""), reg("f", "")}, small, ErrLimit, "f"},
		{"too many implied dirs", []entry{reg("a", ""), reg("b", ""), reg("c", ""), reg("d/e/f", "")}, small, ErrLimit, "d/e/f"},
		{"too deep", []entry{reg("a/b/c/d", "")}, small, ErrLimit, "a/b/c/d"},
		{"path too long", []entry{reg("abcdefghij/abcdefghij", "")}, small, ErrLimit, "abcdefghij/abcdefghij"},
		{"sparse", []entry{{hdr: tar.Header{Typeflag: tar.TypeReg, Name: "s", Size: 1, PAXRecords: map[string]string{
			"XXX.sparse.major": "0", "XXX.sparse.minor": "1", "XXX.sparse.map": "0,1", "XXX.sparse.numblocks": "1", "XXX.sparse.size": "100"}}, content: "a"}}, small, ErrEntryType, "s"},
		{"dir with size", []entry{retype(reg("d", "abc"), tar.TypeDir)}, small, ErrFormat, "d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := rawTar(t, tc.entries)
			// archive/tar refuses to write GNU sparse records: rename them.
			raw = bytes.ReplaceAll(raw, []byte("XXX.sparse."), []byte("GNU.sparse."))
			blob := gz(t, raw)
			_, _, err := extractSandbox(t, blob, tc.limits)
			assertErr(t, err, tc.want, tc.path)
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("%v is not a *PathError", err)
			}
		})
	}
}

func TestExtractAccepts(t *testing.T) {
	entries := []entry{
		dirEntry("./"),
		dirEntry("./a/"),
		reg("./a/x.yaml", "x"),
		{hdr: tar.Header{Typeflag: '\x00', Name: "legacy", Mode: 0o4777, Size: 1, Uid: 1000, Uname: "bob"}, content: "l"},
		dirEntry("b"), // no trailing slash
		reg("b/c/implied.yaml", "i"),
		dirEntry("b/c/"), // explicit after implied
	}
	blob := gz(t, rawTar(t, entries))
	// GNU tar pads to 10 KiB records with zeros.
	raw := rawTar(t, entries)
	padded := gz(t, append(raw, make([]byte, 10240-len(raw)%10240)...))
	for _, b := range [][]byte{blob, padded} {
		dir, st, err := extractSandbox(t, b, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		got := readTree(t, dir)
		want := map[string]tfile{"a/x.yaml": {content: "x"}, "legacy": {content: "l", exec: true}, "b/c/implied.yaml": {content: "i"}}
		if len(got) != len(want) {
			t.Fatalf("got %v", got)
		}
		for p, f := range want {
			if got[p] != f {
				t.Fatalf("%s: %+v", p, got[p])
			}
		}
		if st.Files != 3 || st.Dirs != 3 || st.Bytes != 3 {
			t.Fatalf("stats %+v", st)
		}
	}
}

func TestExtractStream(t *testing.T) {
	good := rawTar(t, []entry{reg("a.yaml", "hello"), reg("b.yaml", "world")})
	// Header claiming 3 bytes for 5 bytes of content: the rest is read as
	// the next header.
	liarLong := rawTar(t, []entry{reg("a.yaml", strings.Repeat("x", 600))})
	setSize(t, liarLong, 0, 3)
	// Header claiming 600 bytes for a stream that ends before.
	liarShort := rawTar(t, []entry{reg("a.yaml", "hello")})
	setSize(t, liarShort, 0, 600)
	liarShort = liarShort[:1024]
	bomb := zeroBomb(t, "zeros", 100<<20)
	t.Logf("bomb: %d bytes compressed", len(bomb))
	bombLimits := Limits{MaxFileSize: 200 << 20, MaxTotalSize: 200 << 20}

	tests := []struct {
		name   string
		blob   []byte
		size   int64 // 0: len(blob)
		limits Limits
		want   error
		path   string
	}{
		{"trailing garbage", append(gz(t, good), "garbage"...), 0, Limits{}, ErrFormat, ""},
		{"second gzip member", append(gz(t, good), gz(t, good)...), 0, Limits{}, ErrFormat, ""},
		{"data after end-of-archive", gz(t, append(append([]byte{}, good...), "junk"...)), 0, Limits{}, ErrFormat, ""},
		{"no end-of-archive", gz(t, good[:len(good)-1024]), 0, Limits{}, ErrFormat, "b.yaml"},
		{"half end-of-archive", gz(t, good[:len(good)-512]), 0, Limits{}, ErrFormat, "b.yaml"},
		{"truncated gzip", gz(t, good)[:40], 0, Limits{}, ErrFormat, ""},
		{"bad checksum", corruptCRC(gz(t, good)), 0, Limits{}, ErrFormat, ""},
		{"not gzip", good, 0, Limits{}, ErrFormat, ""},
		{"size says shorter", gz(t, liarLong), 0, Limits{}, ErrFormat, "a.yaml"},
		{"size says longer", gz(t, liarShort), 0, Limits{}, ErrFormat, "a.yaml"},
		{"declared size too small", gz(t, good), 20, Limits{}, ErrFormat, ""},
		{"declared size too large", gz(t, good), 1 << 20, Limits{}, ErrFormat, ""},
		{"gzip bomb", bomb, 0, bombLimits, ErrLimit, "zeros: limit exceeded: compression ratio exceeds 200"},
		{"padding bomb", gz(t, append(append([]byte{}, good...), make([]byte, 8<<20)...)), 0, Limits{}, ErrFormat, "padding"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.size
			if size == 0 {
				size = int64(len(tc.blob))
			}
			base := t.TempDir()
			dir := filepath.Join(base, "out")
			must(t, os.Mkdir(dir, 0o755))
			must(t, os.Mkdir(filepath.Join(base, "sibling"), 0o755))
			_, err := Extract(context.Background(), bytes.NewReader(tc.blob), size, dir, tc.limits)
			assertErr(t, err, tc.want, tc.path)
			assertOnlyInside(t, base)
		})
	}
}

// setSize rewrites the size field of the ustar header at block i.
func setSize(t *testing.T, raw []byte, i int, size int64) {
	t.Helper()
	blk := raw[i*512 : (i+1)*512]
	copy(blk[124:136], fmt.Sprintf("%011o\x00", size))
	fixChecksum(blk)
}

func corruptCRC(b []byte) []byte {
	b = append([]byte{}, b...)
	b[len(b)-8] ^= 0xff
	return b
}

func TestExtractDirMustBeEmpty(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "x"), nil, 0o644))
	blob := gz(t, rawTar(t, []entry{reg("a", "1")}))
	if _, err := Extract(context.Background(), bytes.NewReader(blob), int64(len(blob)), dir, Limits{}); err == nil {
		t.Fatal("extracted into a non-empty dir")
	}
	if _, err := Extract(context.Background(), bytes.NewReader(blob), int64(len(blob)), filepath.Join(dir, "missing"), Limits{}); err == nil {
		t.Fatal("extracted into a missing dir")
	}
}

func TestExtractCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	blob := gz(t, rawTar(t, []entry{reg("a", "1")}))
	_, err := Extract(ctx, bytes.NewReader(blob), int64(len(blob)), t.TempDir(), Limits{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

// zeroBomb returns a tar+gzip holding one file of size zero bytes.
func zeroBomb(t testing.TB, name string, size int64) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	must(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: size}))
	chunk := make([]byte, 1<<20)
	for n := size; n > 0; n -= int64(len(chunk)) {
		_, err := tw.Write(chunk[:min(n, int64(len(chunk)))])
		must(t, err)
	}
	must(t, tw.Close())
	must(t, zw.Close())
	return buf.Bytes()
}
