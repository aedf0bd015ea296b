package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/pkg/verify"
)

// FuzzParsePolicy: any input is a policy or an ErrPolicy-matching error,
// never a panic. Seeded with the spec's vectors. Key references in fuzzed
// input resolve against the vectors' directory; KMS providers are not linked
// into this test binary, so no network is touched.
func FuzzParsePolicy(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("../../specs/testdata/policy", dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: addonpack.dev/v1alpha1\nkind: Policy\n"))
	getenv := func(string) string { return "" }
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := verify.ParsePolicy(context.Background(), data, "fuzz.yaml", getenv)
		if err != nil {
			return
		}
		if p.Digest() == "" {
			t.Fatal("accepted policy has no digest")
		}
	})
}
