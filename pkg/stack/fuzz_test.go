package stack

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzParse holds the stack file parser to no panics, and to stack files
// that satisfy its rules whenever it accepts one.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: r.example/addons/a\n    version: '>=1.0.0, <2.0.0'\n    values: a.yaml\n",
		"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - name: b\n    repository: localhost:5000/b\n    digest: sha256:0000000000000000000000000000000000000000000000000000000000000000\npolicy: p.yaml\n",
		"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons: []\n",
		"apiVersion: addonpack.dev/v1alpha2\nkind: Stack\nupgrade: patch\naddons:\n  - repository: r.example/addons/a\n    version: '*'\n    upgrade: major\n",
		"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\nupgrade: minor\naddons:\n  - repository: r.example/addons/a\n    version: '*'\n",
		"{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Parse(data, "addons.yaml")
		if err != nil {
			return
		}
		if len(st.Addons) == 0 || len(st.Addons) > MaxRoots {
			t.Fatalf("accepted %d roots", len(st.Addons))
		}
		for _, e := range st.Addons {
			if (e.Version == "") == (e.Digest == "") || e.repo.Repository == "" || checkPolicy(e.Upgrade) != nil {
				t.Fatalf("accepted entry %+v", e)
			}
			if e.Upgrade != "" && st.APIVersion != APIVersionV1Alpha2 {
				t.Fatalf("accepted an upgrade policy in %s", st.APIVersion)
			}
		}
	})
}

// FuzzParseLock holds the lock reader to no panics, in bounded work, and to
// locks a resolution could have written whenever it accepts one: unique
// names, an order that is a permutation of the entries with dependencies
// first, signers only in a v1alpha2 lock, and a canonical form that reads
// back the same. Seeded with the golden locks, hand edits of them that must
// be refused, and the spec's lock vectors.
func FuzzParseLock(f *testing.F) {
	for _, name := range []string{"operator.lock", "webhook.lock", "downgraded.lock"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(append(slices.Clone(b), "  - webhook\n"...))                                        // order names one twice
		f.Add([]byte(strings.Replace(string(b), "  - cert-manager\n", "", 1)))                    // order misses one
		f.Add([]byte(strings.Replace(string(b), "version: 1.1", "version: 1.0", 1)))              // version off its tag
		f.Add([]byte(strings.Replace(string(b), "by: cert-operator@0.2.0", "by: evil@1.0.0", 1))) // an unknown requirer
		f.Add([]byte(strings.Replace(string(b), "addons:\n", "addons:\n  - name: cert-manager\n    repository: evil.example/cert-manager\n    version: 1.0.0\n    tag: 1.0.0\n    digest: sha256:"+strings.Repeat("0", 64)+"\n    level: 0\n    requiredBy:\n      - by: stack\n        version: '*'\n", 1)))
	}
	f.Add([]byte("apiVersion: addonpack.dev/v1alpha1\nkind: StackLock\naddons: []\norder: []\n"))
	// The spec's vectors: signers (keys and keyless identities) and their
	// refusals among them.
	vectors, _ := filepath.Glob(filepath.Join("..", "..", "specs", "testdata", "stack-lock", "*", "*.lock"))
	if len(vectors) == 0 {
		f.Fatal("no lock vectors in specs/testdata/stack-lock")
	}
	for _, v := range vectors {
		b, err := os.ReadFile(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := parseLock(data, "addons.lock")
		if err != nil {
			if !errors.Is(err, ErrStack) && !errors.Is(err, ErrLock) {
				t.Fatalf("refused outside ErrStack/ErrLock: %v", err)
			}
			return
		}
		if len(l.Addons) > MaxNodes || len(l.Order) != len(l.Addons) {
			t.Fatalf("accepted %d entries, order of %d", len(l.Addons), len(l.Order))
		}
		pos := map[string]int{}
		for i, name := range l.Order {
			if _, dup := pos[name]; dup {
				t.Fatalf("accepted order naming %s twice", name)
			}
			pos[name] = i
		}
		for _, a := range l.Addons {
			if len(a.Signers) > 0 && l.APIVersion != APIVersionV1Alpha2 || len(a.Signers) > MaxSigners {
				t.Fatalf("accepted %d signers of %s in a %s lock", len(a.Signers), a.Name, l.APIVersion)
			}
			i, ok := pos[a.Name]
			if !ok {
				t.Fatalf("accepted %s missing from the order", a.Name)
			}
			for _, r := range a.RequiredBy {
				if by, _, ok := strings.Cut(r.By, "@"); ok && pos[by] <= i {
					t.Fatalf("accepted %s ordered before %s, which it requires", by, a.Name)
				}
			}
		}
		b, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseLock(b, "addons.lock")
		if err != nil {
			t.Fatalf("the canonical form of an accepted lock is refused: %v\n%s", err, b)
		}
		if b2, _ := back.Marshal(); string(b2) != string(b) {
			t.Fatalf("canonical form does not read back:\n%s\n---\n%s", b, b2)
		}
	})
}
