package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// tfile is a file of a test tree.
type tfile struct {
	content string
	exec    bool
}

// writeTree creates files under dir, in the given order of paths (sorted
// when order is nil), with file permissions perm (|0111 for exec files).
func writeTree(t testing.TB, dir string, files map[string]tfile, order []string, perm os.FileMode) {
	t.Helper()
	if order == nil {
		for p := range files {
			order = append(order, p)
		}
		sort.Strings(order)
	}
	for _, p := range order {
		f := files[p]
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := perm
		if f.exec {
			mode |= 0o111
		}
		if err := os.WriteFile(full, []byte(f.content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil { // WriteFile is subject to the umask
			t.Fatal(err)
		}
	}
}

// pack runs Scan and Write on dir.
func pack(t testing.TB, dir string) []byte {
	t.Helper()
	files, err := Scan(dir, DefaultLimits())
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	var buf bytes.Buffer
	if err := Write(context.Background(), &buf, files); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

// readTree returns the regular files under dir with their content and
// exec bit, failing on anything but files and directories, and checking
// normalised modes.
func readTree(t testing.TB, dir string) map[string]tfile {
	t.Helper()
	out := map[string]tfile{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			if rel != "." && info.Mode().Perm() != 0o755 {
				t.Errorf("dir %s has mode %v", rel, info.Mode())
			}
		case info.Mode().IsRegular():
			perm := info.Mode().Perm()
			if perm != 0o644 && perm != 0o755 {
				t.Errorf("file %s has mode %v", rel, perm)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = tfile{content: string(data), exec: perm == 0o755}
		default:
			t.Errorf("%s: unexpected type %v", rel, info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// entry is a raw tar entry for hostile archives.
type entry struct {
	hdr     tar.Header
	content string
	retype  byte // patch the typeflag to this after writing (0: no)
}

func reg(name, content string) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(content))}, content: content}
}

func dirEntry(name string) entry {
	return entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755}}
}

// retype marks e to get another typeflag once written by rawTar, bypassing
// archive/tar's own checks.
func retype(e entry, flag byte) entry {
	e.retype = flag
	return e
}

// rawTar builds an uncompressed tar from entries (with end-of-archive).
func rawTar(t testing.TB, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.hdr
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		at := buf.Len()
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("WriteHeader %q: %v", h.Name, err)
		}
		if e.retype != 0 { // the header block is written at once
			patchTypeflag(buf.Bytes()[at:at+512], e.retype)
		}
		if e.content != "" {
			if _, err := io.WriteString(tw, e.content); err != nil {
				t.Fatalf("write %q: %v", h.Name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// extractSandbox extracts blob into a fresh dir next to an empty sibling
// directory, and checks that nothing appeared outside dir.
func extractSandbox(t testing.TB, blob []byte, limits Limits) (string, Stats, error) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	sibling := filepath.Join(base, "sibling")
	for _, d := range []string{dir, sibling} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Extract(context.Background(), bytes.NewReader(blob), int64(len(blob)), dir, limits)
	assertOnlyInside(t, base)
	if ents, _ := os.ReadDir(sibling); len(ents) != 0 {
		t.Fatalf("sibling dir was written to: %v", ents)
	}
	return dir, st, err
}

// assertOnlyInside checks base holds only "out" and "sibling" and that
// nothing under it is a symlink or a special file.
func assertOnlyInside(t testing.TB, base string) {
	t.Helper()
	ents, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "out" && e.Name() != "sibling" {
			t.Fatalf("unexpected %s next to the output dir", e.Name())
		}
	}
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			t.Fatalf("%s: unexpected type %v", p, d.Type())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// assertErr checks err wraps want and mentions path.
func assertErr(t testing.TB, err, want error, path string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("error %q does not wrap %q", err, want)
	}
	if path != "" && !strings.Contains(err.Error(), path) {
		t.Fatalf("error %q does not name %q", err, path)
	}
}

// patchTypeflag sets the typeflag of a ustar header block and fixes its
// checksum.
func patchTypeflag(blk []byte, flag byte) {
	blk[156] = flag
	fixChecksum(blk)
}

func fixChecksum(blk []byte) {
	copy(blk[148:156], "        ")
	var sum int64
	for _, b := range blk {
		sum += int64(b)
	}
	copy(blk[148:156], fmt.Sprintf("%06o\x00 ", sum))
}
