package verify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

func vectorEnv(t *testing.T) func(string) string {
	a, b := newKey(t), newKey(t)
	env := map[string]string{"ADDONPACK_TEST_KEY": string(a.PublicPEM()), "ADDONPACK_TEST_KEY2": string(b.PublicPEM())}
	return func(k string) string { return env[k] }
}

// TestPolicyVectors loads specs/testdata/policy: every valid file loads,
// every invalid one fails with ErrPolicy.
func TestPolicyVectors(t *testing.T) {
	getenv := vectorEnv(t)
	for _, kind := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "specs", "testdata", "policy", kind, "*.yaml"))
		if len(files) == 0 {
			t.Fatalf("no %s vectors", kind)
		}
		for _, f := range files {
			t.Run(kind+"/"+filepath.Base(f), func(t *testing.T) {
				p, err := verify.LoadPolicy(context.Background(), f, getenv)
				if kind == "valid" && err != nil {
					t.Fatal(err)
				}
				if kind == "invalid" && !errors.Is(err, verify.ErrPolicy) {
					t.Fatalf("want ErrPolicy, got %v (%v)", err, p)
				}
			})
		}
	}
}

func TestPolicyScopesAndDigest(t *testing.T) {
	getenv := vectorEnv(t)
	path := filepath.Join("..", "..", "specs", "testdata", "policy", "valid", "full.yaml")
	p, err := verify.LoadPolicy(context.Background(), path, getenv)
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		"registry.example.com/addons/critical/dns": "registry.example.com/addons/critical",
		"registry.example.com/addons/critical":     "registry.example.com/addons/critical",
		"registry.example.com/addons/criticalx":    "",
		"other.example.com/x":                      "",
	} {
		r, err := registry.ParseReference(ref + ":1")
		if err != nil {
			t.Fatal(err)
		}
		s, ok := p.ScopeFor(r)
		if !ok || s.Prefix != want {
			t.Errorf("%s: scope %q, want %q", ref, s.Prefix, want)
		}
	}
	// The digest is stable, independent of file names, and changes with the rules.
	again, _ := verify.LoadPolicy(context.Background(), path, getenv)
	if p.Digest() != again.Digest() || p.Digest() != p.Digest() {
		t.Fatal("digest not stable")
	}
	if p.Digest() == p.WithProvenance(verify.ProvenanceRules{BuilderIDs: []string{"x"}}).Digest() {
		t.Fatal("digest ignores provenance rules")
	}
	raw, _ := os.ReadFile(path)
	copyPath := filepath.Join(t.TempDir(), "renamed.yaml")
	os.WriteFile(copyPath, raw, 0o600)
	if c, _ := verify.LoadPolicy(context.Background(), copyPath, getenv); c.Digest() != p.Digest() {
		t.Fatal("digest depends on the file name")
	}
}

// TestScopeCanonicalHosts: a strict scope applies to every spelling of its
// registry (issue 17 item 6); the catch-all scope is not a way around it.
func TestScopeCanonicalHosts(t *testing.T) {
	p, err := verify.LoadPolicy(context.Background(), filepath.Join("..", "..", "specs", "testdata", "policy", "valid", "names-and-hosts.yaml"), vectorEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		"localhost:5000/addons/hello:0.1.0":       "localhost:5000/addons",
		"LOCALHOST:5000/addons/hello:0.1.0":       "localhost:5000/addons",
		"localhost:05000/addons/hello:0.1.0":      "localhost:5000/addons",
		"LocalHost.:005000/addons/hello:0.1.0":    "localhost:5000/addons",
		"[::1]:5000/addons/hello:0.1.0":           "[::1]:5000/addons",
		"[0:0:0:0:0:0:0:1]:05000/addons/hello":    "[::1]:5000/addons",
		"localhost:5001/addons/hello:0.1.0":       "",
		"localhost:5000/addonsx/hello:0.1.0":      "",
		"registry.example.com:443/addons/x:0.1.0": "",
	} {
		r, err := registry.ParseReference(ref)
		if err != nil {
			t.Fatal(err)
		}
		s, ok := p.ScopeFor(r)
		if !ok || s.Prefix != want {
			t.Errorf("%s: scope %q, want %q", ref, s.Prefix, want)
		}
	}
	r, _ := registry.ParseReference("Mirror.Example.com:443/vendor/hello-addon:0.1.0")
	if c := verify.Claim(r, "", p); c.ExpectedName() != "hello" {
		t.Errorf("names: %+v", c)
	}
}
