package commands_test

import (
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
