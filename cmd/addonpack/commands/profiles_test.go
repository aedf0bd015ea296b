package commands_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

const autoscaler = "../../../examples/cluster-autoscaler"

// TestRenderProfiles: --kube-version picks the Kubernetes-version
// components (required when an add-on has some), the provider enum picks
// its component and defaults overlay, profiles equal the examples'
// goldens, and Flux objects for an add-on with profiles carry them.
func TestRenderProfiles(t *testing.T) {
	if r := run(t, nil, "render", autoscaler); r.code != commands.ExitUsage || !strings.Contains(r.err, "render --kube-version") {
		t.Fatalf("render without --kube-version: %+v", r)
	}
	if r := run(t, nil, "render", autoscaler, "--kube-version", "1.30"); r.code != commands.ExitUsage || !strings.Contains(r.err, "--kube-version") {
		t.Fatalf("render --kube-version 1.30: %+v", r)
	}
	r := run(t, nil, "render", autoscaler, "--kube-version", "v1.29.3-eks-1")
	want, _ := os.ReadFile(filepath.Join(autoscaler, "expected", "profiles", "provider-aws_kubernetes-1.29.0.yaml"))
	if r.code != 0 || r.out != string(want) {
		t.Fatalf("render for 1.29 differs from the aws/1.29 profile: %+v", r)
	}
	// config defaults needs no Kubernetes version: the aws overlay applies.
	if r := run(t, nil, "config", "defaults", autoscaler); r.code != 0 || !strings.Contains(r.out, "expander: least-waste") {
		t.Fatalf("config defaults: %+v", r)
	}
	gcp := filepath.Join(t.TempDir(), "gcp.yaml")
	os.WriteFile(gcp, []byte("apiVersion: cluster-autoscaler.addons.addonpack.dev/v1alpha1\nkind: ClusterAutoscalerConfig\nspec:\n  provider: gcp\n"), 0o644)
	r = run(t, nil, "render", autoscaler, "--kube-version", "1.30.2", "--values", gcp)
	want, _ = os.ReadFile(filepath.Join(autoscaler, "expected", "profiles", "provider-gcp_kubernetes-1.30.0.yaml"))
	if r.code != 0 || r.out != string(want) {
		t.Fatalf("render gcp for 1.30 differs from its profile: %+v", r)
	}

	reg := testregistry.New(t)
	home := t.TempDir()
	env := map[string]string{"HOME": home, "COSIGN_PASSWORD": "profiles-test"}
	if r := run(t, env, "keygen", "--output-key-prefix", filepath.Join(home, "release")); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	ref := reg.Host() + "/addons/cluster-autoscaler:1.30.2-addonpack.1"
	if r := run(t, env, "push", autoscaler, ref, "--key", filepath.Join(home, "release.key")); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	pub := filepath.Join(home, "release.pub")
	if r := run(t, env, "render", "--for", "flux", ref, "--key", pub); r.code != commands.ExitUsage || !strings.Contains(r.err, "render --kube-version") {
		t.Fatalf("--for flux without --kube-version: %+v", r)
	}
	for _, tool := range []string{"flux", "argocd"} {
		r := run(t, env, "render", "--for", tool, ref, "--key", pub, "--kube-version", "1.29.3")
		if r.code != 0 || !strings.Contains(r.out, "- components/aws\n") || !strings.Contains(r.out, "- components/kubernetes-1.29\n") || !strings.Contains(r.out, "expander: least-waste") {
			t.Fatalf("--for %s with profiles: %+v", tool, r)
		}
	}
}

// TestDiffKubeVersion: diff gives --kube-version to both sides, and refuses
// as render does when a side depends on it and none (or no valid one) is
// given. The next release of the example drops its 1.29 component and adds
// one for 1.30, so each cluster version sees a component appear or go.
func TestDiffKubeVersion(t *testing.T) {
	next := filepath.Join(t.TempDir(), "next")
	if err := os.CopyFS(next, os.DirFS(autoscaler)); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(filepath.Join(next, "addon.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	from := "      - path: components/kubernetes-1.29\n        kubernetes: \">=1.29.0, <1.30.0\"\n"
	to := "      - path: components/kubernetes-1.30\n        kubernetes: \">=1.30.0, <1.31.0\"\n"
	if !strings.Contains(string(a), from) {
		t.Fatalf("examples/cluster-autoscaler/addon.yaml no longer has %q", from)
	}
	component := "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nimages:\n  - name: registry.k8s.io/autoscaling/cluster-autoscaler\n    newTag: v1.30.3\n"
	os.RemoveAll(filepath.Join(next, "components", "kubernetes-1.29"))
	os.Mkdir(filepath.Join(next, "components", "kubernetes-1.30"), 0o755)
	if err := errors.Join(os.WriteFile(filepath.Join(next, "addon.yaml"), []byte(strings.Replace(string(a), from, to, 1)), 0o644),
		os.WriteFile(filepath.Join(next, "components", "kubernetes-1.30", "kustomization.yaml"), []byte(component), 0o644)); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		kube     []string
		code     int
		out, err string
	}{
		// No version: refused as render refuses it, naming the flag.
		{nil, commands.ExitUsage, "", "depends on the Kubernetes version (kubernetes: \">=1.29.0, <1.30.0\"): give the target cluster's version (render --kube-version)"},
		{[]string{"--kube-version", "1.30"}, commands.ExitUsage, "", "--kube-version: Kubernetes version \"1.30\": want MAJOR.MINOR.PATCH"},
		// A 1.29 cluster loses the 1.29 autoscaler: the next release no longer supports it.
		{[]string{"--kube-version", "v1.29.3-eks-1"}, 1, "-        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.29.4\n+        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.2\n", ""},
		// A 1.30 cluster gets the new 1.30 component's patch release.
		{[]string{"--kube-version", "1.30.2"}, 1, "-        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.2\n+        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.3\n", ""},
	} {
		r := run(t, nil, append([]string{"diff", autoscaler, next, "--exit-code"}, tt.kube...)...)
		if r.code != tt.code || !strings.Contains(r.out, tt.out) || !strings.Contains(r.err, tt.err) {
			t.Errorf("diff %v: %+v\nwant exit %d, stdout with %q, stderr with %q", tt.kube, r, tt.code, tt.out, tt.err)
		}
	}
	// Both sides get the version: the same package at 1.29 is unchanged.
	if r := run(t, nil, "diff", autoscaler, autoscaler, "--kube-version", "1.29.3", "--exit-code"); r.code != 0 || r.out != "" || r.err != "no differences\n" {
		t.Fatalf("diff of the example with itself at 1.29.3: %+v", r)
	}
}

// TestInspectProfiles: inspect lists an add-on's profiles — the ones the
// builder rendered, whose goldens examples/cluster-autoscaler keeps — in
// text and JSON, from the config blob; an add-on without profiles shows
// none.
func TestInspectProfiles(t *testing.T) {
	dir := t.TempDir()
	layout, plain := filepath.Join(dir, "autoscaler"), filepath.Join(dir, "hello")
	for src, dst := range map[string]string{autoscaler: layout, "../../../examples/hello": plain} {
		if r := run(t, nil, "build", src, "-o", dst); r.code != 0 {
			t.Fatalf("build %s: %+v", src, r)
		}
	}
	goldens, err := os.ReadDir(filepath.Join(autoscaler, "expected", "profiles"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, g := range goldens {
		want = append(want, strings.TrimSuffix(g.Name(), ".yaml"))
	}

	r := run(t, nil, "inspect", layout, "--format", "json")
	var out struct {
		Profiles []struct {
			Name       string
			Fields     map[string]string
			Kubernetes string
		}
	}
	if err := json.Unmarshal([]byte(r.out), &out); r.code != 0 || err != nil {
		t.Fatalf("inspect -o json: %+v (%v)", r, err)
	}
	var names []string
	for _, p := range out.Profiles {
		names = append(names, p.Name)
		if p.Name != "provider-"+p.Fields["provider"]+"_kubernetes-"+p.Kubernetes {
			t.Errorf("profile %+v: fields and version do not match its name", p)
		}
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("inspect lists profiles %v, the example's goldens are %v", names, want)
	}
	r = run(t, nil, "inspect", layout)
	if r.code != 0 || !strings.Contains(r.out, "\nProfiles:     4 (render selects one by --values and --kube-version)\n"+
		"  provider-aws_kubernetes-1.29.0  provider=aws, Kubernetes 1.29.0\n") ||
		!strings.HasSuffix(r.out, "  provider-gcp_kubernetes-1.30.0  provider=gcp, Kubernetes 1.30.0\n") {
		t.Fatalf("inspect: %+v", r)
	}

	if r := run(t, nil, "inspect", plain); r.code != 0 || strings.Contains(r.out, "\nProfiles:") {
		t.Fatalf("inspect of an add-on without profiles: %+v", r)
	}
	if r := run(t, nil, "inspect", plain, "--format", "json"); r.code != 0 || strings.Contains(r.out, `"profiles"`) {
		t.Fatalf("inspect -o json of an add-on without profiles: %+v", r)
	}
}
