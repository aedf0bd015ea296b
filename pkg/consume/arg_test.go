package consume

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

func TestParseReferences(t *testing.T) {
	tests := []struct {
		in       string
		registry string // "" means a usage error
	}{
		{"localhost:5000/addons/hello:0.1.0", "localhost:5000"},
		{"LOCALHOST:5000/addons/hello:0.1.0", "localhost:5000"},
		{"LOCALHOST/addons/hello:0.1.0", "localhost"},
		{"Registry.Example.COM/addons/hello", "registry.example.com"},
		{"127.0.0.1:5000/a/b@sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", "127.0.0.1:5000"},
		{"[::1]:5000/addons/hello:1", "[::1]:5000"},
		{"hello", ""},                     // a bare name
		{"addons/hello:0.1.0", ""},        // no registry part: not a DNS lookup of "addons"
		{"myregistry/addons/hello:1", ""}, // a single label other than localhost
		{"hello.tar:0.1.0", ""},           // no slash at all
		{"./localhost:5000/addons/hello:0.1.0", ""},
		{"/abs/path", ""},
		{"localhost:5000/UPPER:tag", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := ParseArg(tt.in)
			if tt.registry == "" {
				if IsPath(tt.in) {
					if err == nil || !errors.Is(err, fs.ErrNotExist) {
						t.Fatalf("ParseArg(%q) = %+v, %v; want not found", tt.in, a, err)
					}
					if _, err := ParseReference(tt.in); !errors.Is(err, registry.ErrInvalidReference) {
						t.Fatalf("ParseReference(%q): %v, want ErrInvalidReference", tt.in, err)
					}
					return
				}
				if !errors.Is(err, registry.ErrInvalidReference) || !strings.Contains(err.Error(), tt.in) {
					t.Fatalf("ParseArg(%q) = %+v, %v; want ErrInvalidReference naming it", tt.in, a, err)
				}
				return
			}
			if err != nil || a.Kind != KindReference || a.Ref.Registry != tt.registry {
				t.Fatalf("ParseArg(%q) = %+v, %v; want a reference to %s", tt.in, a, err, tt.registry)
			}
		})
	}
}

// TestReferenceAndDirectory: an argument that is both a reference (in
// whatever case its host is written) and an existing directory is refused
// naming both readings — the checkout never stands in for the verified
// artifact, nor the other way round; written as a path it is the directory.
// A bare name without a registry part that exists is that path (kubectl
// apply -k DIR); one that does not exist is still a reference without a
// registry part.
func TestReferenceAndDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, ref := range []string{"LOCALHOST/addons/hello:0.1.0", "localhost:5000/addons/hello:0.1.0", "Example.com/a/b"} {
		if err := os.MkdirAll(ref, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(ref, "addon.yaml"), []byte("x"), 0o644)
		_, err := ParseArg(ref)
		if !errors.Is(err, ErrAmbiguousArg) || errdef.ClassOf(err) != errdef.ErrInvalidArgument || !strings.Contains(err.Error(), "./"+ref) {
			t.Fatalf("ParseArg(%q): %v; want ErrAmbiguousArg naming ./%s", ref, err, ref)
		}
		if a, err := ParseArg("./" + ref); err != nil || a.Kind != KindSourceDir {
			t.Fatalf("ParseArg(./%s) = %+v, %v; want the directory", ref, a, err)
		}
	}
	for _, name := range []string{"hello", "addons/hello", "layout.tar:0.1.0"} {
		dir, _, _ := strings.Cut(name, ":")
		if strings.HasSuffix(dir, ".tar") {
			os.WriteFile(dir, []byte("x"), 0o644)
		} else {
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "addon.yaml"), []byte("x"), 0o644)
		}
		a, err := ParseArg(name)
		if err != nil || a.Kind == KindReference || a.Path != dir {
			t.Fatalf("ParseArg(%q) = %+v, %v; want the local path %s", name, a, err, dir)
		}
	}
	if _, err := ParseArg("absent/hello:0.1.0"); !errors.Is(err, registry.ErrInvalidReference) || !strings.Contains(err.Error(), "no registry part") {
		t.Fatalf("a bare name that does not exist: %v, want no registry part", err)
	}
}

func TestParsePaths(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	lay := filepath.Join(dir, "layout")
	empty := filepath.Join(dir, "empty")
	tarball := filepath.Join(dir, "hello.tar")
	for _, d := range []string{src, lay, empty} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(src, "addon.yaml"), nil, 0o644)
	os.WriteFile(filepath.Join(lay, "oci-layout"), nil, 0o644)
	os.WriteFile(tarball, nil, 0o644)
	os.Symlink("/dev/null", filepath.Join(dir, "dev"))

	tests := []struct {
		in     string
		kind   Kind
		layout string
		err    error
	}{
		{src, KindSourceDir, "", nil},
		{lay, KindLayoutDir, lay, nil},
		{lay + ":0.1.0", KindLayoutDir, lay + ":0.1.0", nil},
		{tarball, KindTarball, tarball, nil},
		{tarball + ":0.1.0", KindTarball, tarball + ":0.1.0", nil},
		{empty, 0, "", ErrNotUsable},
		{src + ":0.1.0", 0, "", ErrNotUsable},
		{filepath.Join(dir, "dev"), 0, "", ErrNotUsable},
		{filepath.Join(dir, "missing"), 0, "", fs.ErrNotExist},
		{filepath.Join(dir, "missing") + ":0.1.0", 0, "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.in), func(t *testing.T) {
			a, err := ParseArg(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.in) {
					t.Fatalf("ParseArg(%q) = %+v, %v; want %v naming the path", tt.in, a, err, tt.err)
				}
				return
			}
			if err != nil || a.Kind != tt.kind || a.Layout != tt.layout {
				t.Fatalf("ParseArg(%q) = %+v, %v; want %v %q", tt.in, a, err, tt.kind, tt.layout)
			}
		})
	}
}

func TestHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.WriteFile(filepath.Join(home, "hello.tar"), nil, 0o644)
	if a, err := ParseArg("~/hello.tar"); err != nil || a.Kind != KindTarball || a.Path != filepath.Join(home, "hello.tar") {
		t.Fatalf("ParseArg(~/hello.tar) = %+v, %v", a, err)
	}
}

// FuzzParse: any argument is classified without a panic, and one written as
// a path is never a reference.
func FuzzParseArg(f *testing.F) {
	for _, s := range []string{"localhost:5000/a/b:1", "./x", "~", "LOCALHOST/a", "a/b", "[::1]:5/a@sha256:00", "../x:tag", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseArg(s)
		if err == nil && a.Kind == KindReference && IsPath(s) {
			t.Fatalf("ParseArg(%q) is a reference, but it is written as a path", s)
		}
		if err == nil && a.Kind == KindReference && a.Ref.Registry != strings.ToLower(a.Ref.Registry) {
			t.Fatalf("ParseArg(%q): registry %q not canonical", s, a.Ref.Registry)
		}
	})
}
