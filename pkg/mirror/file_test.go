package mirror_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/mirror"
)

// TestMirrorVectors runs specs/testdata/mirror: every valid file parses,
// every invalid one is refused with ErrFile (exit 3), the error naming the
// file and containing each "# error:" line of the vector.
func TestMirrorVectors(t *testing.T) {
	for _, kind := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "specs", "testdata", "mirror", kind, "*.yaml"))
		if len(files) < 3 {
			t.Fatalf("only %d %s vectors", len(files), kind)
		}
		for _, f := range files {
			t.Run(kind+"/"+filepath.Base(f), func(t *testing.T) {
				m, err := mirror.Load(f)
				if kind == "valid" {
					if err != nil {
						t.Fatal(err)
					}
					if len(m.Sources) == 0 || (m.Destination.Registry == nil) == (m.Destination.Tarball == "") {
						t.Fatalf("parsed %+v", m)
					}
					return
				}
				if !errors.Is(err, mirror.ErrFile) || errdef.ClassOf(err) != errdef.ErrInvalid {
					t.Fatalf("want ErrFile (invalid), got %v", err)
				}
				if !strings.Contains(err.Error(), f) {
					t.Errorf("%v does not name the file", err)
				}
				wants := errorLines(t, f)
				if len(wants) == 0 {
					t.Fatal("the vector has no # error: line")
				}
				for _, w := range wants {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
			})
		}
	}
}

func errorLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "# error: "); ok {
			out = append(out, s)
		}
	}
	return out
}

// TestParseBounds: a file over MaxFileSize is refused before it is parsed.
func TestParseBounds(t *testing.T) {
	big := append([]byte("# "), bytes.Repeat([]byte("x"), mirror.MaxFileSize)...)
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mirror.Load(path); !errors.Is(err, mirror.ErrFile) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("got %v", err)
	}
}

// TestDestinationTarget: PREFIX/PATH:TAG keeps the source's path, so the
// add-on's name stays the last element; relative paths follow the file.
func TestDestinationTarget(t *testing.T) {
	m, err := mirror.Load(filepath.Join("..", "..", "specs", "testdata", "mirror", "valid", "registry.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got := m.Destination.Target(m.Sources[0].Repository, "0.2.0").String()
	if want := "registry.internal/mirror/acme/addons/hello:0.2.0"; got != want {
		t.Errorf("target %s, want %s", got, want)
	}
	m, err = mirror.Load(filepath.Join("..", "..", "specs", "testdata", "mirror", "valid", "tarball-keys.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("..", "..", "specs", "testdata", "mirror", "valid", "out", "mirror.tar"); m.Destination.Tarball != want {
		t.Errorf("tarball %s, want %s", m.Destination.Tarball, want)
	}
	m, err = mirror.Load(filepath.Join("..", "..", "specs", "testdata", "mirror", "valid", "json.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Destination.Target(m.Sources[0].Repository, "1.0.0").String(), "mirror.example.com:5000/a/b/hello:1.0.0"; got != want {
		t.Errorf("target %s, want %s", got, want)
	}
}
