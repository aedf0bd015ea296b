package prune

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/stack"
)

const (
	pinA = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
	pinB = "sha256:fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9"
)

func TestDigestList(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []digest.Digest
		err      string
	}{
		{"empty", "", nil, ""},
		{"two with comments", "# stack prod\n" + pinA + "\n\n  " + pinB + "  \n", []digest.Digest{pinA, pinB}, ""},
		{"crlf", pinA + "\r\n", []digest.Digest{pinA}, ""},
		{"not a digest", pinA + "\nhello:0.1.0\n", nil, `pins.txt:2: "hello:0.1.0" is not a digest`},
		{"short hex", "sha256:abc\n", nil, "pins.txt:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := DigestList{}.ReadPins("pins.txt", []byte(tc.in))
			if !ok {
				t.Fatal("DigestList must claim every file")
			}
			if tc.err != "" {
				if !errors.Is(err, ErrPins) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want ErrPins containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("= %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// lockReader stands in for the stack lock reader: it claims files that start
// with "lock:" and pins the digest after it.
type lockReader struct{}

func (lockReader) ReadPins(name string, data []byte) ([]digest.Digest, bool, error) {
	rest, ok := strings.CutPrefix(string(data), "lock:")
	if !ok {
		return nil, false, nil
	}
	return []digest.Digest{digest.Digest(strings.TrimSpace(rest))}, true, nil
}

func TestLoadPins(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got, err := LoadPins(write("addons.lock", "lock:"+pinA), lockReader{}); err != nil || !slices.Equal(got, []digest.Digest{pinA}) {
		t.Errorf("lock reader: %v, %v", got, err)
	}
	if got, err := LoadPins(write("pins.txt", pinB+"\n"), lockReader{}); err != nil || !slices.Equal(got, []digest.Digest{pinB}) {
		t.Errorf("digest list fallback: %v, %v", got, err)
	}
	if _, err := LoadPins(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestVouchSubject(t *testing.T) {
	hex := strings.TrimPrefix(pinA, "sha256:")
	for tag, want := range map[string]string{
		"sha256-" + hex:            pinA,
		"sha256-" + hex + ".sig":   pinA,
		"sha256-" + hex + ".att":   pinA,
		"sha256-" + hex + ".sbom":  pinA,
		"sha256-" + hex + ".other": "",
		"sha256-" + hex[:10]:       "",
		"0.1.0":                    "",
		"latest":                   "",
	} {
		got, ok := vouchSubject(tag)
		if ok != (want != "") || string(got) != want {
			t.Errorf("vouchSubject(%q) = %q, %v; want %q", tag, got, ok, want)
		}
	}
}

// FuzzDigestList: any input is refused with ErrPins or yields valid digests.
func FuzzDigestList(f *testing.F) {
	for _, s := range []string{"", pinA + "\n", "# c\n" + pinB, "sha256:zz\n", "sha512:" + strings.Repeat("a", 128)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok, err := DigestList{}.ReadPins("f", data)
		if !ok {
			t.Fatal("not claimed")
		}
		if err != nil {
			if !errors.Is(err, ErrPins) {
				t.Fatalf("err %v is not ErrPins", err)
			}
			return
		}
		for _, d := range got {
			if d.Validate() != nil {
				t.Fatalf("invalid digest %q accepted", d)
			}
		}
	})
}

func TestLoadPinsStackLock(t *testing.T) {
	root := []stack.Requirement{{By: "stack", Version: "*"}}
	l := &stack.Lock{APIVersion: stack.APIVersion, Kind: stack.KindLock, Order: []string{"a", "b"},
		Addons: []stack.LockedAddon{
			{Name: "a", Repository: "registry.example/a", Version: "1.0.0", Tag: "1.0.0", Digest: pinA, RequiredBy: root},
			{Name: "b", Repository: "registry.example/b", Version: "2.0.0", Tag: "2.0.0", Digest: pinB, RequiredBy: root},
		}}
	p := filepath.Join(t.TempDir(), "addons.lock")
	if err := l.Write(p); err != nil {
		t.Fatal(err)
	}
	got, err := LoadPins(p)
	if err != nil || !slices.Equal(got, []digest.Digest{pinA, pinB}) {
		t.Fatalf("= %v, %v; want both add-ons' digests", got, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.lock")
	os.WriteFile(bad, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: StackLock\naddons:\n- name: a\n  digest: sha256:nope\n"), 0o644)
	if _, err := LoadPins(bad); !errors.Is(err, stack.ErrStack) {
		t.Errorf("bad lock: %v, want stack.ErrStack", err)
	}
	// A lock no resolution could have written pins nothing: an add-on
	// listed twice, the second time in another repository.
	l.Addons = append(l.Addons, l.Addons[0])
	l.Addons[2].Repository = "evil.example/a"
	if err := l.Write(p); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPins(p); !errors.Is(err, stack.ErrLock) || !strings.Contains(err.Error(), "a: invalid lock: listed twice") {
		t.Errorf("edited lock: %v, want stack.ErrLock naming a", err)
	}
}
