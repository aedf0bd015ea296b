//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// notApplied names every directory under examples/ that is neither an
// add-on (addon.yaml) nor a kustomization, and why it is not applied here. A
// new directory that is none of these fails the test until it is decided.
var notApplied = map[string]string{
	"ci":       "GitHub Actions workflows, run by GitHub, not objects for a cluster",
	"policies": "verification policies and a trusted root read by addonpack, not objects for a cluster",
	"stack":    "a stack file: TestStackJob and TestFluxStackDependsOn publish it, lock it and install it",
}

// TestExamplesApply applies every example add-on rendered by addonpack (and
// the install-job kustomizations as kubectl builds them) server-side to the
// API server, in stages (CRDs, Established, objects, then webhook
// configurations and APIServices), then applies again and requires that no
// object's resourceVersion moved: a second apply changes nothing.
//
// What cannot run here, and what the test does about it:
//   - there is no kubelet, so the webhook backends of cert-manager and
//     cert-operator and the metrics-server behind its APIService never run.
//     Their webhook configurations and APIService are applied last within
//     the add-on and deleted when its subtest ends: left in place, a webhook
//     with failurePolicy Fail and no backend refuses the next add-on's objects
//     (cert-operator's cert-manager Certificate is refused by cert-manager's
//     webhook), and an unavailable APIService breaks discovery for the Flux
//     controllers later on.
//   - cert-operator needs cert-manager's CRDs (it creates a cert-manager
//     Certificate), so add-ons apply in name order, cert-manager first, and
//     its CRDs stay.
//   - every add-on renders with --kube-version set to the API server's own
//     version (cluster-autoscaler picks a component by it). cluster-autoscaler
//     declares kubernetes "<1.31" while this server is 1.34: render does not
//     check that range and the API server admits its objects; refusing the
//     version is preflight's job, not the API server's.
func TestExamplesApply(t *testing.T) {
	e := newEnv(t)
	version := e.serverVersion(t)
	dir := filepath.Join(e.root, "examples")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ent := range entries {
		if ent.IsDir() {
			names = append(names, ent.Name())
		}
	}
	sort.Strings(names)
	release := e.keygen(t, "release")
	applied := 0
	for _, name := range names {
		path := filepath.Join(dir, name)
		var render func(t *testing.T) string
		addon := exists(filepath.Join(path, "addon.yaml"))
		switch {
		case addon:
			render = func(t *testing.T) string { return e.mustAddonpack(t, "render", path, "--kube-version", version) }
		case exists(filepath.Join(path, "kustomization.yaml")):
			render = func(t *testing.T) string { return e.mustKubectl(t, nil, "kustomize", path) }
		default:
			why, ok := notApplied[name]
			if !ok {
				t.Errorf("examples/%s is neither an add-on nor a kustomization and not listed in notApplied: decide how the suite covers it", name)
				continue
			}
			t.Logf("examples/%s not applied: %s", name, why)
			continue
		}
		applied++
		t.Run(name, func(t *testing.T) {
			s := split(t, render(t))
			if len(s.all()) == 0 {
				t.Fatal("rendered no objects")
			}
			t.Logf("examples/%s: %s", name, describe(s))
			t.Cleanup(func() {
				if len(s.last) > 0 {
					_, _ = e.kubectlRun(t, list(t, s.last), "delete", "--ignore-not-found", "-f", "-")
				}
			})
			// A field manager per example, as separate appliers would have:
			// under one manager, install-job's bare hello Namespace would
			// take back the labels the hello add-on set, leave the object
			// with no managed fields, and the next apply would record a
			// "before-first-apply" manager: a change the test would
			// rightly report, but one of the test's making.
			manager := fieldManager + "-" + name
			first := e.applyStaged(t, manager, s)
			// The API server's own controllers (CRD status, APIService
			// availability) may still be writing status: read the versions
			// once they have settled, then apply again.
			time.Sleep(2 * time.Second)
			before := e.current(t, s)
			if len(before) != len(first) {
				t.Fatalf("applied %d objects, the API server has %d", len(first), len(before))
			}
			after := e.applyStaged(t, manager, s)
			if !reflect.DeepEqual(before, after) {
				var moved []string
				for k, v := range after {
					if before[k] != v {
						moved = append(moved, k+" "+before[k]+"->"+v)
					}
				}
				sort.Strings(moved)
				t.Fatalf("the second apply changed %d objects: %s", len(moved), strings.Join(moved, ", "))
			}
			if addon {
				e.pullApplyK(t, manager, path, release, version, after)
			}
		})
	}
	if applied < 8 {
		t.Fatalf("applied %d example directories; expected at least the 8 add-ons", applied)
	}
}

// TestCustomResourceBeforeItsCRD is the negative case of the staging: a
// custom resource sent in the same apply as its CRD, before the CRD is
// established, is refused, so a renderer or applier that put CRDs after their
// resources (or did not wait) would fail this suite.
func TestCustomResourceBeforeItsCRD(t *testing.T) {
	e := newEnv(t)
	// A group of its own each run: a CRD deleted by an earlier run may still
	// be terminating, and one still served would make the refusal vanish.
	group := fmt.Sprintf("run%d.e2e.addonpack.dev", time.Now().UnixNano())
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Cluster",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}
	cr := map[string]any{"apiVersion": group + "/v1", "kind": "Widget", "metadata": map[string]any{"name": "first"}}
	t.Cleanup(func() {
		_, _ = e.kubectlRun(t, list(t, []map[string]any{crd}), "delete", "--ignore-not-found", "-f", "-")
	})

	_, err := e.kubectlRun(t, list(t, []map[string]any{cr, crd}), "apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
	if err == nil {
		t.Fatal("a custom resource applied before its CRD was accepted; the suite's staging would not be tested")
	}
	if !strings.Contains(err.Error(), "Widget") {
		t.Fatalf("refused, but not for the Widget kind: %v", err)
	}
	got := e.applyStaged(t, fieldManager, stages{crds: []map[string]any{crd}, objects: []map[string]any{cr}})
	if _, ok := got["Widget /first"]; !ok {
		t.Fatalf("staged apply did not create the Widget: %v", got)
	}
}

// pullApplyK pushes the example add-on, signed, and applies it with
// kubectl apply -k the two ways a consumer gets a directory from addonpack:
//   - render --format kustomize -o DIR (the config wired in): kubectl's
//     kustomize must build the objects render gave, so under the same field
//     manager nothing moves (want: each object's resourceVersion after the
//     render applies);
//   - pull -o DIR, the package as published (its own kustomization, the
//     components render would choose by the config not wired in): it must
//     apply, and a second apply must change nothing. It is applied under the
//     same field manager, as a user switching from one to the other would:
//     its objects differ from render's (cert-manager's env fieldRefs, the
//     autoscaler's args), and under another manager those fields conflict.
func (e *env) pullApplyK(t *testing.T, manager, src, key, kubeVersion string, want map[string]string) {
	t.Helper()
	name := filepath.Base(src)
	// The repository must name the add-on (greeter-v1 and greeter-v2 are
	// both greeter); the tag tells the directories apart.
	ref := e.registry + "/examples/" + addonName(t, src) + ":e2e-" + name
	e.mustAddonpack(t, "push", src, ref, "--key", key+".key")

	rendered := filepath.Join(e.work, "rendered-"+name)
	e.mustAddonpack(t, "render", ref, "--key", key+".pub", "--kube-version", kubeVersion, "--format", "kustomize", "-o", rendered)
	for i := 1; i <= 2; i++ {
		got := resourceVersions(t, e.mustKubectl(t, nil, "apply", "--server-side", "--field-manager", manager, "-o", "json", "-k", rendered))
		if d := versionDiff(want, got); d != "" {
			t.Fatalf("render --format kustomize + kubectl apply -k (apply %d) is not render's apply: %s", i, d)
		}
	}

	pulled := filepath.Join(e.work, "pulled-"+name)
	e.mustAddonpack(t, "pull", ref, "-o", pulled, "--key", key+".pub")
	first := resourceVersions(t, e.mustKubectl(t, nil, "apply", "--server-side", "--field-manager", manager, "-o", "json", "-k", pulled))
	second := resourceVersions(t, e.mustKubectl(t, nil, "apply", "--server-side", "--field-manager", manager, "-o", "json", "-k", pulled))
	if d := versionDiff(first, second); d != "" {
		t.Fatalf("pull + kubectl apply -k: the second apply changed objects: %s", d)
	}
	t.Logf("pull + kubectl apply -k: %d objects, the second apply changed none", len(first))
}

// versionDiff lists the objects whose resourceVersion differs, or that only
// one side has ("" when none).
func versionDiff(want, got map[string]string) string {
	var diff []string
	for k, v := range got {
		if w, ok := want[k]; !ok {
			diff = append(diff, k+" not expected")
		} else if w != v {
			diff = append(diff, k+" "+w+"->"+v)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			diff = append(diff, k+" missing")
		}
	}
	sort.Strings(diff)
	return strings.Join(diff, ", ")
}

// serverVersion is the API server's gitVersion, which must be the release
// it was built from (build-cluster.sh stamps it; unstamped it is
// v0.0.0-master and a version check would see nothing).
func (e *env) serverVersion(t *testing.T) string {
	t.Helper()
	var v struct {
		ServerVersion struct {
			GitVersion, Major, Minor string
		} `json:"serverVersion"`
	}
	out := e.mustKubectl(t, nil, "version", "-o", "json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("kubectl version: %v\n%s", err, out)
	}
	sv := v.ServerVersion
	if !strings.HasPrefix(sv.GitVersion, "v1."+sv.Minor+".") || sv.Major != "1" {
		t.Fatalf("API server reports version %+v: not a stamped v1.x release", sv)
	}
	return sv.GitVersion
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// addonName is metadata.name of DIR/addon.yaml.
func addonName(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "addon.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Metadata struct{ Name string }
	}
	if err := yaml.Unmarshal(b, &a); err != nil || a.Metadata.Name == "" {
		t.Fatalf("%s/addon.yaml: no metadata.name (%v)", dir, err)
	}
	return a.Metadata.Name
}
