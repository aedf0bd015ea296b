//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stackNamespaces are where the example stack's add-ons put their objects.
var stackNamespaces = []string{"cert-manager", "cert-operator-system"}

// serviceMonitorCRD serves monitoring.coreos.com/v1 ServiceMonitor, which the
// example stack's values enable for cert-operator: a cluster with the
// Prometheus Operator has it. Only the CRD stands in, with an open schema:
// no operator reads the object here.
const serviceMonitorCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: servicemonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  names: {kind: ServiceMonitor, listKind: ServiceMonitorList, plural: servicemonitors, singular: servicemonitor}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// publishedStack is the example stack (examples/stack) published signed to
// the suite's registry and locked: dir holds stack/addons.yaml, its values
// and lock, and release.pub.
type publishedStack struct {
	dir, file, key string
}

func (e *env) publishStack(t *testing.T) publishedStack {
	t.Helper()
	dir := filepath.Join(e.work, "stack-publish")
	key := e.keygen(t, "stack-release")
	copyRewritten := func(src, dst string) {
		t.Helper()
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"addon.yaml", "addons.yaml"} {
			p := filepath.Join(dst, f)
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "registry.example.com/addons/", e.registry+"/addons/")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, a := range []struct{ name, version string }{{"cert-manager", "1.15.3"}, {"cert-operator", "0.9.0"}} {
		copyRewritten(filepath.Join(e.root, "examples", a.name), filepath.Join(dir, a.name))
		e.mustAddonpack(t, "push", filepath.Join(dir, a.name), e.registry+"/addons/"+a.name+":"+a.version, "--key", key+".key")
	}
	copyRewritten(filepath.Join(e.root, "examples", "stack"), filepath.Join(dir, "stack"))
	s := publishedStack{dir: dir, file: filepath.Join(dir, "stack", "addons.yaml"), key: key + ".pub"}
	e.mustAddonpack(t, "lock", s.file, "--key", s.key)
	return s
}

// freshStackObjects deletes the stack's namespaced objects an earlier test
// applied under other field managers (the CRDs and Namespaces stay: without
// kube-controller-manager a deleted Namespace never goes), so the stack is
// installed afresh and no server-side apply meets another manager's values.
func (e *env) freshStackObjects(t *testing.T, s publishedStack) {
	t.Helper()
	st := split(t, e.mustAddonpack(t, "render", "--stack", s.file, "--key", s.key))
	var objs []map[string]any
	for _, o := range append(st.objects, st.last...) {
		if o["kind"] != "Namespace" {
			objs = append(objs, o)
		}
	}
	if _, err := e.kubectlRun(t, list(t, objs), "delete", "--ignore-not-found", "--wait", "-f", "-"); err != nil && !onlyUnknownKinds(err) {
		t.Fatal(err)
	}
}

// onlyUnknownKinds reports whether every object kubectl could not handle
// was of a kind the cluster does not serve (yet: the stack's CRDs are
// installed by the test that runs first): none of those exists to delete.
func onlyUnknownKinds(err error) bool {
	msg := err.Error()
	i := strings.Index(msg, "[unable to recognize")
	if i < 0 {
		return false
	}
	for _, part := range strings.Split(strings.TrimSpace(msg[i:]), ", unable to recognize") {
		if !strings.Contains(part, "no matches for kind") {
			return false
		}
	}
	return true
}

// TestStackJob runs examples/install-job-stack's script, as the Job's
// container would, with the real kubectl against the API server (outside a
// Pod: KUBECONFIG instead of the in-cluster config, the mount paths mapped to
// directories). The script runs preflight, renders the locked stack and
// applies 01-cert-manager then 02-cert-operator, waiting after each stage
// for its CRDs to be Established and its Deployments rolled out (the stand-in
// plays the Deployment controller). cert-operator's Certificate, Issuer and
// its custom resources' CRDs must be in the API server at the end.
func TestStackJob(t *testing.T) {
	e := newEnv(t)
	e.mustKubectl(t, []byte(serviceMonitorCRD), "apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
	s := e.publishStack(t)
	e.freshStackObjects(t, s)
	e.standIn(t, stackNamespaces...)

	script := jobScript(t, e.mustKubectl(t, nil, "kustomize", filepath.Join(e.root, "examples", "install-job-stack")))
	config := map[string][]byte{}
	for name, from := range map[string]string{
		"addons.yaml": s.file, "addons.lock": filepath.Join(filepath.Dir(s.file), "addons.lock"),
		"cert-operator.yaml": filepath.Join(filepath.Dir(s.file), "cert-operator.yaml"), "cosign.pub": s.key,
	} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		config[name] = b
	}
	out, err := e.runJobScript(t, script, config)
	t.Logf("the Job's script:\n%s", out)
	if err != nil {
		t.Fatalf("the Job's script failed: %v", err)
	}
	text := out
	first, second := strings.Index(text, "stage 01-cert-manager"), strings.Index(text, "stage 02-cert-operator")
	if first < 0 || second < first {
		t.Fatalf("the stages did not run cert-manager then cert-operator")
	}
	for _, o := range [][]string{
		{"deployment", "cert-operator-system", "cert-operator"},
		{"certificates.cert-manager.io", "cert-operator-system", "cert-operator-webhook"},
		{"issuers.cert-manager.io", "cert-operator-system", ""},
		{"servicemonitors.monitoring.coreos.com", "cert-operator-system", ""},
	} {
		args := []string{"get", o[0], "-n", o[1], "-o", "name"}
		if o[2] != "" {
			args = append(args, o[2])
		}
		if got := e.mustKubectl(t, nil, args...); strings.TrimSpace(got) == "" {
			t.Errorf("no %s in %s after the Job's script", o[0], o[1])
		}
	}
	// The user's value from cert-operator.yaml reached the API server.
	if r := e.jsonpath(t, "deployment", "cert-operator-system", "cert-operator", "{.spec.replicas}"); r != "3" {
		t.Errorf("cert-operator replicas %q, want the stack's values' 3", r)
	}
}

// TestFluxStackDependsOn: the objects of `render --stack --for flux` applied
// to the cluster; source-controller verifies both artifacts and
// kustomize-controller applies cert-manager first. cert-operator's
// Kustomization dependsOn cert-manager's, so while cert-manager is applied
// but not healthy (its Deployments not rolled out: the stand-in is not
// running yet) cert-operator waits, DependencyNotReady, and nothing of it is
// in the API server. Once the stand-in rolls the Deployments out, both turn
// Ready and cert-operator is applied with the stack's values.
func TestFluxStackDependsOn(t *testing.T) {
	e := newEnv(t)
	e.mustKubectl(t, []byte(serviceMonitorCRD), "apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
	s := e.publishStack(t)
	e.freshStackObjects(t, s)
	// Registered before the namespace's cleanup, so it runs after it: the
	// Kustomizations go first (prune off), then the stack's objects, so a
	// later test installs them afresh.
	t.Cleanup(func() { e.freshStackObjects(t, s) })
	ns := e.namespace(t, "flux-e2e-stack")
	objects := e.mustAddonpack(t, "render", "--stack", s.file, "--for", "flux", "--key", s.key, "--public-key", s.key, "--namespace", ns)
	if !strings.Contains(objects, "dependsOn:") {
		t.Fatalf("render --stack --for flux wrote no dependsOn:\n%s", objects)
	}
	e.mustKubectl(t, []byte(objects), "apply", "--server-side", "--field-manager", fieldManager, "-f", "-")

	for _, name := range []string{"cert-manager", "cert-operator"} {
		e.waitVerified(t, ns, name)
	}
	eventually(t, "kustomize-controller applying cert-manager and waiting for its health", fluxWait, func() (bool, string) {
		rev := e.jsonpath(t, "kustomization", ns, "cert-manager", "{.status.lastAttemptedRevision}")
		_, err := e.kubectlRun(t, nil, "get", "deployment", "-n", "cert-manager", "cert-manager-webhook")
		return rev != "" && err == nil, "lastAttemptedRevision " + rev + ", " + summarize(e.conditions(t, "kustomization", ns, "cert-manager"))
	})
	eventually(t, "cert-operator's Kustomization waiting for its dependency", fluxWait, func() (bool, string) {
		c := e.conditions(t, "kustomization", ns, "cert-operator")
		return c["Ready"].Status == "False" && c["Ready"].Reason == "DependencyNotReady", summarize(c)
	})
	if _, err := e.kubectlRun(t, nil, "get", "deployment", "-n", "cert-operator-system", "cert-operator"); err == nil {
		t.Fatal("cert-operator's Deployment exists while its dependency cert-manager is not ready")
	}

	e.standIn(t, stackNamespaces...)
	for _, name := range []string{"cert-manager", "cert-operator"} {
		eventually(t, "Kustomization "+ns+"/"+name+" Ready", fluxWait, func() (bool, string) {
			c := e.conditions(t, "kustomization", ns, name)
			return c["Ready"].Status == "True", summarize(c)
		})
	}
	if r := e.jsonpath(t, "deployment", "cert-operator-system", "cert-operator", "{.spec.replicas}"); r != "3" {
		t.Errorf("cert-operator replicas %q, want the stack's values' 3", r)
	}
	managers := e.jsonpath(t, "deployment", "cert-operator-system", "cert-operator", "{.metadata.managedFields[*].manager}")
	if !strings.Contains(managers, "kustomize-controller") {
		t.Errorf("cert-operator's Deployment was not applied by kustomize-controller (managers %q)", managers)
	}
}
