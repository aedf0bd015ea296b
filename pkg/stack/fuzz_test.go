package stack

import (
	"testing"
)

// FuzzParse holds the stack file parser to no panics, and to stack files
// that satisfy its rules whenever it accepts one.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: r.example/addons/a\n    version: '>=1.0.0, <2.0.0'\n    values: a.yaml\n",
		"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - name: b\n    repository: localhost:5000/b\n    digest: sha256:0000000000000000000000000000000000000000000000000000000000000000\npolicy: p.yaml\n",
		"apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons: []\n",
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
			if (e.Version == "") == (e.Digest == "") || e.repo.Repository == "" {
				t.Fatalf("accepted entry %+v", e)
			}
		}
	})
}
