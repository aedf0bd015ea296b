package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.sha256")

// goldenTree is the small fixed tree whose archive digest is pinned.
var goldenTree = map[string]tfile{
	"addon.yaml":              {content: "apiVersion: addonpack.io/v1\nkind: Addon\nmetadata:\n  name: demo\n"},
	"schema.json":             {content: `{"type":"object","properties":{"replicas":{"type":"integer"}}}` + "\n"},
	"base/kustomization.yaml": {content: "resources:\n  - deployment.yaml\n  - service.yaml\n"},
	"base/deployment.yaml":    {content: strings.Repeat("# deployment\nkind: Deployment\n", 50)},
	"base/service.yaml":       {content: "kind: Service\n"},
	"base.yaml":               {content: "sorts before base/ in byte order\n"},
	"hooks/pre-install.sh":    {content: "#!/bin/sh\necho hi\n", exec: true},
	"deep/a/b/c/d/e/f.yaml":   {content: "deep: true\n"},
	"long/" + strings.Repeat("x", 60) + "/" + strings.Repeat("y", 60) + ".yaml": {content: "needs a ustar prefix split\n"},
	"ünïcode.yaml":     {content: "needs PAX\n"},
	"empty.yaml":       {},
	".addonpackignore": {content: "# nothing\n*.tmp\n"},
	"ignored.tmp":      {content: "left out\n"},
}

func TestGoldenDigest(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, goldenTree, nil, 0o644)
	sum := sha256.Sum256(pack(t, dir))
	got := hex.EncodeToString(sum[:])
	golden := filepath.Join("testdata", "golden.sha256")
	if *update {
		if err := os.WriteFile(golden, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Fatalf("archive digest changed: got %s, want %s\n(the compressor, CompressionLevel or the header layout changed: every package digest changes; run with -update only if intended)", got, strings.TrimSpace(string(want)))
	}
}

func TestReproducible(t *testing.T) {
	dir1 := t.TempDir()
	writeTree(t, dir1, goldenTree, nil, 0o644)
	first := pack(t, dir1)
	if !bytes.Equal(first, pack(t, dir1)) {
		t.Fatal("same tree packed twice gives different bytes")
	}

	// Another absolute path, reversed creation order, 0600/0700 vs 0664/0775
	// permissions under another umask, other mtimes.
	old := syscall.Umask(0o077)
	dir2 := filepath.Join(t.TempDir(), "some", "other", "place")
	var order []string
	for p := range goldenTree {
		order = append(order, p)
	}
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	if err := os.MkdirAll(dir2, 0o700); err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir2, goldenTree, order, 0o600)
	syscall.Umask(old)
	dir3 := t.TempDir()
	writeTree(t, dir3, goldenTree, nil, 0o664)
	when := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	for _, d := range []string{dir2, dir3} {
		filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error {
			when = when.Add(time.Hour)
			return os.Chtimes(p, when, when)
		})
	}
	if got := pack(t, dir2); !bytes.Equal(first, got) {
		t.Fatal("tree at another path, order, umask and mtimes gives different bytes")
	}
	if got := pack(t, dir3); !bytes.Equal(first, got) {
		t.Fatal("tree with 0664 permissions gives different bytes")
	}
}

// TestChunkingIndependent checks the compressor output does not depend on
// how the content is handed to Write (File.Open may return any reader).
func TestChunkingIndependent(t *testing.T) {
	content := strings.Repeat("key: value\nlist:\n  - a\n  - b\n", 20000)
	files := func(chunk int) []File {
		return []File{{Path: "a.yaml", Size: int64(len(content)), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(&chunkReader{s: content, n: chunk}), nil
		}}}
	}
	var want []byte
	for _, chunk := range []int{1 << 20, 1, 7, 511, 4096, 65537} {
		var buf bytes.Buffer
		if err := Write(context.Background(), &buf, files(chunk)); err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = buf.Bytes()
		} else if !bytes.Equal(want, buf.Bytes()) {
			t.Fatalf("chunk size %d gives different bytes", chunk)
		}
	}
}

type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.s) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.n, len(c.s))
	copy(p, c.s[:n])
	c.s = c.s[n:]
	return n, nil
}

func TestWriteHeaders(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, goldenTree, nil, 0o644)
	blob := pack(t, dir)
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || zr.Comment != "" || !zr.ModTime.IsZero() || zr.Extra != nil {
		t.Fatalf("gzip header not empty: %+v", zr.Header)
	}
	tr := tar.NewReader(zr)
	var names []string
	seenDirs := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.ModTime.Unix() != 0 ||
			!h.AccessTime.IsZero() || !h.ChangeTime.IsZero() {
			t.Errorf("%s: non-normalised header %+v", h.Name, h)
		}
		for k := range h.PAXRecords {
			if k != "path" {
				t.Errorf("%s: unexpected PAX record %q", h.Name, k)
			}
		}
		if len(h.PAXRecords) > 0 && h.Name != "ünïcode.yaml" {
			t.Errorf("%s: PAX used without need", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if h.Mode != 0o755 || !strings.HasSuffix(h.Name, "/") {
				t.Errorf("dir %s: mode %o", h.Name, h.Mode)
			}
			seenDirs[strings.TrimSuffix(h.Name, "/")] = true
		case tar.TypeReg:
			want := int64(0o644)
			if goldenTree[h.Name].exec {
				want = 0o755
			}
			if h.Mode != want {
				t.Errorf("%s: mode %o, want %o", h.Name, h.Mode, want)
			}
			for _, d := range parents(h.Name) {
				if !seenDirs[d] {
					t.Errorf("%s before its directory %s", h.Name, d)
				}
			}
		default:
			t.Errorf("%s: type %q", h.Name, h.Typeflag)
		}
	}
	want := []string{".addonpackignore", "addon.yaml", "base.yaml", "base/", "base/deployment.yaml",
		"base/kustomization.yaml", "base/service.yaml", "deep/", "deep/a/", "deep/a/b/", "deep/a/b/c/",
		"deep/a/b/c/d/", "deep/a/b/c/d/e/", "deep/a/b/c/d/e/f.yaml", "empty.yaml", "hooks/",
		"hooks/pre-install.sh", "long/", "long/" + strings.Repeat("x", 60) + "/", "long/" + strings.Repeat("x", 60) + "/" + strings.Repeat("y", 60) + ".yaml", "schema.json", "ünïcode.yaml"}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Fatalf("entries:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}

func TestWriteRefuses(t *testing.T) {
	open := func(s string) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }
	}
	tests := []struct {
		name  string
		files []File
		want  error
		path  string
	}{
		{"shrunk", []File{{Path: "a.yaml", Size: 10, Open: open("short")}}, ErrFileChanged, "a.yaml"},
		{"grown", []File{{Path: "a.yaml", Size: 2, Open: open("longer")}}, ErrFileChanged, "a.yaml"},
		{"dotdot", []File{{Path: "../a", Size: 0, Open: open("")}}, ErrUnsafePath, "../a"},
		{"unclean", []File{{Path: "a//b", Size: 0, Open: open("")}}, ErrUnsafePath, "a//b"},
		{"absolute", []File{{Path: "/a", Size: 0, Open: open("")}}, ErrUnsafePath, "/a"},
		{"duplicate", []File{{Path: "a", Open: open("")}, {Path: "a", Open: open("")}}, ErrDuplicate, "a"},
		{"case", []File{{Path: "A", Open: open("")}, {Path: "a", Open: open("")}}, ErrDuplicate, "a"},
		{"file-vs-dir", []File{{Path: "a", Open: open("")}, {Path: "a/b", Open: open("")}}, ErrDuplicate, "a/b"},
		{"too big", []File{{Path: "big", Size: 65<<20 + 1, Open: open("")}}, ErrLimit, "big"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(context.Background(), io.Discard, tc.files)
			assertErr(t, err, tc.want, tc.path)
		})
	}
}

func TestWriteRatioLimit(t *testing.T) {
	zeros := make([]byte, 8<<20)
	files := []File{{Path: "zeros", Size: int64(len(zeros)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(zeros)), nil
	}}}
	assertErr(t, Write(context.Background(), io.Discard, files), ErrLimit, "")
}

func TestWriteCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	writeTree(t, dir, goldenTree, nil, 0o644)
	files, err := Scan(dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(ctx, io.Discard, files); err != context.Canceled {
		t.Fatalf("got %v", err)
	}
}
