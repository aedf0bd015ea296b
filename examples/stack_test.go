package examples_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/stack"
)

// exampleRegistry serves the example add-ons, as built from this checkout,
// under registry.example.com/addons/NAME: one version each, the one in
// addon.yaml. It stands in for a registry whose artifacts verified; what it
// tests is the examples' dependency graph, not the registry path.
type exampleRegistry map[string]exampleAddon // by repository

type exampleAddon struct {
	dir string
	art stack.Artifact
}

func (r exampleRegistry) Versions(_ context.Context, repo registry.Reference) (semver.List, error) {
	a, ok := r[repo.Repo()]
	if !ok {
		return semver.List{}, fmt.Errorf("tags of %s: %w", repo.Repo(), registry.ErrNotFound)
	}
	return semver.FromTags([]string{a.art.Version.Tag()}), nil
}

func (r exampleRegistry) Open(_ context.Context, ref registry.Reference, name string) (stack.Artifact, error) {
	a, ok := r[ref.Repo()]
	if !ok || (ref.Tag != a.art.Version.Tag() && ref.Digest != a.art.Digest) {
		return stack.Artifact{}, fmt.Errorf("%s: %w", ref, registry.ErrNotFound)
	}
	if a.art.Name != name {
		return stack.Artifact{}, fmt.Errorf("%s is %s, not %s", ref, a.art.Name, name)
	}
	return a.art, nil
}

// TestExampleStack resolves examples/stack/addons.yaml with pkg/stack over
// the example add-ons as built (cert-operator declares its dependency on
// cert-manager in addon.yaml), renders each in the lock's order with the
// stack's values, and checks that the stack is whole: every cert-manager.io
// object a dependent renders is of a kind an earlier add-on's CRDs define,
// and every CA-injection annotation names a Certificate of the stack.
func TestExampleStack(t *testing.T) {
	ctx := context.Background()
	st, err := stack.Load(filepath.Join("stack", "addons.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	reg := exampleRegistry{}
	for _, dir := range []string{"cert-manager", "cert-operator"} {
		res, err := build.Build(ctx, dir, memory.New(), build.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := semver.Parse(res.Addon.Spec.Version)
		if err != nil {
			t.Fatal(err)
		}
		reg["registry.example.com/addons/"+res.Addon.Metadata.Name] = exampleAddon{dir: dir, art: stack.Artifact{
			Digest: res.Manifest.Digest, Name: res.Addon.Metadata.Name, Version: v, Dependencies: res.Addon.Spec.Dependencies,
		}}
	}
	lock, err := stack.Resolve(ctx, reg, st, stack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lock.Order, []string{"cert-manager", "cert-operator"}) {
		t.Fatalf("order %v, want cert-manager before cert-operator", lock.Order)
	}
	cm := lock.Addons[0]
	if cm.Name != "cert-manager" || cm.Version != "1.15.3" || cm.Level != 0 || len(cm.RequiredBy) != 1 ||
		cm.RequiredBy[0] != (stack.Requirement{By: "cert-operator@0.9.0", Version: ">=1.14.0, <2.0.0"}) {
		t.Fatalf("cert-manager locked as %+v", cm)
	}

	values := map[string]string{} // repository → values file
	for _, e := range st.Addons {
		if e.Values != "" {
			values[e.Repository] = filepath.Join(st.Dir(), e.Values)
		}
	}
	served := map[string]bool{}       // "group/Kind" defined by the CRDs rendered so far
	certificates := map[string]bool{} // "namespace/name" of the Certificates rendered so far
	usedCertManager := false
	for _, name := range lock.Order {
		la := lockedByName(t, lock, name)
		var vals []byte
		if f := values[la.Repository]; f != "" {
			if vals, err = os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
		p, err := consume.OpenDir(reg[la.Repository].dir, archive.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Render(ctx, vals, values[la.Repository])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		objs := parseObjects(t, out)
		for _, o := range objs {
			if o.Kind == "CustomResourceDefinition" {
				var crd struct {
					Group string `json:"group"`
					Names struct {
						Kind string `json:"kind"`
					} `json:"names"`
				}
				if err := json.Unmarshal(o.Spec, &crd); err != nil {
					t.Fatal(err)
				}
				served[crd.Group+"/"+crd.Names.Kind] = true
			}
			if o.Kind == "Certificate" && strings.HasPrefix(o.APIVersion, "cert-manager.io/") {
				certificates[o.Metadata.Namespace+"/"+o.Metadata.Name] = true
			}
		}
		for _, o := range objs {
			group, _, _ := strings.Cut(o.APIVersion, "/")
			if strings.HasSuffix(group, "cert-manager.io") {
				usedCertManager = usedCertManager || name != "cert-manager"
				if !served[group+"/"+o.Kind] {
					t.Errorf("%s renders %s %s before any add-on of the stack defines it", name, o.APIVersion, o.Kind)
				}
			}
			if from := o.Metadata.Annotations["cert-manager.io/inject-ca-from"]; from != "" && !certificates[from] {
				t.Errorf("%s: %s %s injects the CA of Certificate %s, which the stack does not render", name, o.Kind, o.Metadata.Name, from)
			}
		}
		// The stack's values reached the add-on.
		if name == "cert-operator" && !strings.Contains(string(out), "--log-level=warn") {
			t.Errorf("cert-operator rendered without stack/cert-operator.yaml (no --log-level=warn)")
		}
	}
	if !usedCertManager {
		t.Fatal("no add-on of the stack uses cert-manager's API: the check above proved nothing")
	}
}

func lockedByName(t *testing.T, l *stack.Lock, name string) stack.LockedAddon {
	t.Helper()
	for _, a := range l.Addons {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("%s is not in the lock", name)
	return stack.LockedAddon{}
}
