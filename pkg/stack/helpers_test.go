package stack

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakeRegistry holds add-ons by repository and tag; every Open is recorded.
type fakeRegistry struct {
	repos  map[string]map[string]Artifact // repo → tag → artifact
	opened []string
}

// add publishes name at version in host/addons/name with deps ("repo range").
func (f *fakeRegistry) add(name, version string, deps ...string) {
	if f.repos == nil {
		f.repos = map[string]map[string]Artifact{}
	}
	repo := "registry.example/addons/" + name
	a := Artifact{Name: name, Version: semver.MustParse(strings.ReplaceAll(version, "_", "+")), Digest: digest.FromString(repo + ":" + version)}
	for _, d := range deps {
		dn, rng, _ := strings.Cut(d, " ")
		a.Dependencies = append(a.Dependencies, spec.Dependency{Name: dn, Repository: "registry.example/addons/" + dn, Version: rng})
	}
	if f.repos[repo] == nil {
		f.repos[repo] = map[string]Artifact{}
	}
	f.repos[repo][strings.ReplaceAll(version, "+", "_")] = a // tags write "+" as "_"
}

func (f *fakeRegistry) Versions(_ context.Context, repo registry.Reference) (semver.List, error) {
	tags, ok := f.repos[repo.Repo()]
	if !ok {
		return semver.List{}, fmt.Errorf("tags of %s: %w", repo.Repo(), registry.ErrNotFound)
	}
	var names []string
	for t := range tags {
		names = append(names, t)
	}
	return semver.FromTags(names), nil
}

func (f *fakeRegistry) Open(_ context.Context, ref registry.Reference, name string) (Artifact, error) {
	f.opened = append(f.opened, ref.String())
	for tag, a := range f.repos[ref.Repo()] {
		if tag == ref.Tag || a.Digest == ref.Digest {
			if a.Name != name {
				return Artifact{}, fmt.Errorf("%s is %s, not %s", ref, a.Name, name)
			}
			return a, nil
		}
	}
	return Artifact{}, fmt.Errorf("%s: %w", ref, registry.ErrNotFound)
}

// writeStack writes a stack file of the given YAML body and loads it.
func writeStack(t *testing.T, body string) *Stack {
	t.Helper()
	path := filepath.Join(t.TempDir(), "addons.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: Stack\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return st
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// certFixture is issue 12's world: cert-manager at several versions, an
// operator that needs it, and a webhook that needs both.
func certFixture() *fakeRegistry {
	f := &fakeRegistry{}
	for _, v := range []string{"1.13.0", "1.14.0", "1.15.0-rc.1", "1.15.3", "2.0.0-alpha.1", "2.0.0"} {
		f.add("cert-manager", v)
	}
	f.add("cert-operator", "0.1.0", "cert-manager >=1.13.0, <2.0.0")
	f.add("cert-operator", "0.2.0", "cert-manager >=1.14.0, <2.0.0")
	f.add("webhook", "0.3.0", "cert-operator >=0.1.0", "cert-manager <1.15.0")
	return f
}

// Resolve makes fakeRegistry a TagResolver.
func (f *fakeRegistry) Resolve(_ context.Context, ref registry.Reference) (ocispec.Descriptor, error) {
	a, ok := f.repos[ref.Repo()][ref.Tag]
	if !ok {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %w", ref, registry.ErrNotFound)
	}
	return ocispec.Descriptor{Digest: a.Digest}, nil
}
