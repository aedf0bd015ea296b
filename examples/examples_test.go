// Package examples_test runs every example add-on end to end: build, push to
// an in-process registry, fetch by digest, render with the packed defaults
// and with config/custom.yaml, and compare with expected/ (refresh with
// go test ./examples -update).
package examples_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/testregistry"
)

var update = flag.Bool("update", false, "rewrite expected/ renderings")

func TestExamples(t *testing.T) {
	reg := testregistry.New(t)
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob("*/addon.yaml")
	if err != nil || len(dirs) < 4 {
		t.Fatalf("examples: %v %v", dirs, err)
	}
	for _, manifest := range dirs {
		dir := filepath.Dir(manifest)
		t.Run(dir, func(t *testing.T) {
			ctx := context.Background()
			store := memory.New()
			res, err := build.Build(ctx, dir, store, build.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := registry.ParseReference(reg.Host() + "/examples/" + dir + ":" + res.Addon.Spec.Version)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
				t.Fatal(err)
			}
			p, err := consume.Fetch(ctx, artifact.Remote{Client: c, Ref: ref}, consume.PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			// An add-on with Kubernetes-version components renders its
			// default and custom goldens for this cluster version.
			p.KubeVersion = kubeVersions[dir]
			if p.Loaded.Descriptor.Digest != res.Manifest.Digest {
				t.Fatalf("fetched %s, built %s", p.Loaded.Descriptor.Digest, res.Manifest.Digest)
			}
			if _, err := os.Stat(filepath.Join(dir, "expected")); err == nil {
				if _, err := p.Files.Open("expected"); err == nil {
					t.Fatal("expected/ was packed: .addonpackignore must leave it out")
				}
			}
			cases := map[string]string{"default.yaml": ""}
			if _, err := os.Stat(filepath.Join(dir, "config", "custom.yaml")); err == nil {
				cases["custom.yaml"] = filepath.Join(dir, "config", "custom.yaml")
			}
			for golden, valuesFile := range cases {
				var values []byte
				if valuesFile != "" {
					if values, err = os.ReadFile(valuesFile); err != nil {
						t.Fatal(err)
					}
				}
				got, err := p.Render(ctx, values, valuesFile)
				if err != nil {
					t.Fatalf("render with %q: %v", valuesFile, err)
				}
				// The source directory renders the same as the pulled artifact.
				local, err := consume.OpenDir(dir, archive.DefaultLimits())
				if err != nil {
					t.Fatal(err)
				}
				local.KubeVersion = p.KubeVersion
				if fromDir, err := local.Render(ctx, values, valuesFile); err != nil || string(fromDir) != string(got) {
					t.Fatalf("source dir renders differently from the artifact (%v)", err)
				}
				compareGolden(t, filepath.Join(dir, "expected", golden), got)
			}
			checkProfiles(ctx, t, p, dir)
		})
	}
}

// kubeVersions is the cluster version the default and custom goldens of an
// add-on with Kubernetes-version components are rendered for.
var kubeVersions = map[string]semver.Version{"cluster-autoscaler": semver.MustParse("1.30.2")}

// checkProfiles renders every profile of the pulled add-on (specs/config.md
// section 10.4: each enum value of a when, each Kubernetes-version
// boundary) and compares each with expected/profiles/NAME.yaml. An add-on
// without profiles has no such directory.
func checkProfiles(ctx context.Context, t *testing.T, p *deliver.Package, dir string) {
	t.Helper()
	typ, err := p.ConfigType()
	if err != nil || typ == nil {
		return
	}
	profiles, err := typ.Profiles()
	if err != nil {
		t.Fatal(err)
	}
	goldens, _ := filepath.Glob(filepath.Join(dir, "expected", "profiles", "*.yaml"))
	if !*update && len(goldens) != len(profiles) {
		t.Fatalf("%d profiles, %d goldens in expected/profiles (go test ./examples -update)", len(profiles), len(goldens))
	}
	for _, prof := range profiles {
		q := *p
		q.KubeVersion = prof.KubeVersion
		got, err := q.Render(ctx, prof.Object(typ), "profile "+prof.Name)
		if err != nil {
			t.Fatalf("profile %s: %v", prof.Name, err)
		}
		compareGolden(t, filepath.Join(dir, "expected", "profiles", prof.Name+".yaml"), got)
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./examples -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s: rendering changed (run go test ./examples -update if intended)\ngot:\n%s", path, got)
	}
}
