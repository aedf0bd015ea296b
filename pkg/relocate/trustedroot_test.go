package relocate_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestCarryTrustedRoot: a trusted root carried by ToTarball is stored
// unchanged, its digest reported, and ExtractTrustedRoot writes it out on
// the other side (again: kept; other bytes: refused); a tarball without
// one, or a file that is not a root, is refused with nothing written.
func TestCarryTrustedRoot(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	s := newKey(t)
	src, _ := pushSigned(t, c, registries[0].Start(t), "addons/hello", "0.1.0", s)
	raw := testsigstore.NewTrustedRootJSON(t)
	dir := t.TempDir()
	rootFile := filepath.Join(dir, "root.json")
	if err := os.WriteFile(rootFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, "hello.tar")
	res, err := relocate.ToTarball(ctx, c, src, tarball, relocate.Options{Policy: policyFor(t, s), CarryTrustedRoot: rootFile})
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := verify.LoadTrustedRoot("carried", rootFile, res.TrustedRoot)
	if err != nil || res.TrustedRoot == "" {
		t.Fatalf("reported digest %q: %v", res.TrustedRoot, err)
	}
	if in, err := relocate.ReadLayoutFile(tarball, relocate.TrustedRootFile, verify.MaxTrustedRootSize); err != nil || !bytes.Equal(in, raw) {
		t.Fatalf("carried root: %v (%d bytes, want %d)", err, len(in), len(raw))
	}

	out := filepath.Join(t.TempDir(), "trusted_root.json")
	d, created, err := relocate.ExtractTrustedRoot(tarball+":0.1.0", out)
	if err != nil || !created || d != pinned.Digest {
		t.Fatalf("extract: %s %v %v", d, created, err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, raw) {
		t.Fatal("extracted bytes differ")
	}
	if d, created, err := relocate.ExtractTrustedRoot(tarball, out); err != nil || created || d != pinned.Digest {
		t.Fatalf("extract over the same bytes: %s %v %v", d, created, err)
	}
	if err := os.WriteFile(out, append(bytes.Clone(raw), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := relocate.ExtractTrustedRoot(tarball, out); !errors.Is(err, errdef.ErrExists) {
		t.Fatalf("extract over the same bytes and more: %v", err)
	}
	if err := os.WriteFile(out, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := relocate.ExtractTrustedRoot(tarball, out); !errors.Is(err, errdef.ErrExists) {
		t.Fatalf("extract over other bytes: %v", err)
	}

	plain := filepath.Join(dir, "plain.tar")
	if _, err := relocate.ToTarball(ctx, c, src, plain, relocate.Options{}); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "root.json")
	if _, _, err := relocate.ExtractTrustedRoot(plain, other); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("tarball without a root: %v", err)
	}
	notRoot := filepath.Join(t.TempDir(), "x.tar")
	if _, err := relocate.ToTarball(ctx, c, src, notRoot, relocate.Options{CarryTrustedRoot: tarball}); !errors.Is(err, verify.ErrPolicy) {
		t.Fatalf("carrying a file that is not a root: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Dir(notRoot)); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	if _, err := os.Stat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("written without a root: %v", err)
	}
}

// TestCarryTrustedRootMany: ToTarballMany carries the root like ToTarball
// (every result reports its digest); CheckCarriedTrustedRoot finds it, says
// "" for a tarball without one, and refuses a root keyless verification
// would not read; a file that is not a root is refused before anything is
// written.
func TestCarryTrustedRootMany(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	s := newKey(t)
	src, desc := pushSigned(t, c, registries[0].Start(t), "addons/hello", "0.1.0", s)
	raw := testsigstore.NewTrustedRootJSON(t)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rootFile := write("root.json", raw)
	entries := []relocate.Entry{{Ref: src.WithDigest(desc.Digest), LayoutTag: "hello-0.1.0"}}
	for _, tc := range []struct {
		name    string
		carry   string
		files   map[string][]byte
		want    error // from ToTarballMany
		checked error // from CheckCarriedTrustedRoot
		digest  bool
	}{
		{name: "carried", carry: rootFile, digest: true},
		{name: "none", carry: ""},
		{name: "not a root", carry: write("policy.yaml", []byte("kind: VerificationPolicy\n")), want: verify.ErrPolicy},
		{name: "missing", carry: filepath.Join(dir, "missing.json"), want: fs.ErrNotExist},
		{name: "a broken root in the files", files: map[string][]byte{relocate.TrustedRootFile: []byte("{}")}, checked: verify.ErrPolicy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tarball := filepath.Join(t.TempDir(), "stack.tar")
			res, err := relocate.ToTarballMany(ctx, c, entries, tarball, tc.files, relocate.Options{Policy: policyFor(t, s), CarryTrustedRoot: tc.carry})
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("ToTarballMany: %v, want %v", err, tc.want)
				}
				if _, err := os.Stat(tarball); !os.IsNotExist(err) {
					t.Fatalf("a refused export wrote %s", tarball)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, err := relocate.CheckCarriedTrustedRoot(tarball)
			if !errors.Is(err, tc.checked) || (err == nil) != (tc.checked == nil) {
				t.Fatalf("CheckCarriedTrustedRoot: %v, want %v", err, tc.checked)
			}
			if tc.checked != nil {
				return
			}
			if (d != "") != tc.digest || res[0].TrustedRoot != d {
				t.Fatalf("digest checked %q, reported %q; carried: %v", d, res[0].TrustedRoot, tc.digest)
			}
		})
	}
}
