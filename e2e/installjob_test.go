//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallJob runs examples/install-job's script, as the Job's container
// would, with the real kubectl against the API server (outside a Pod:
// KUBECONFIG instead of the in-cluster config, the ConfigMap's keys as files
// in a directory mapped for /etc/addonpack): preflight, render with the
// user's values, apply. The hello Deployment must then carry the
// ConfigMap's values. With another key in place of the publisher's, the
// script fails before anything is applied.
func TestInstallJob(t *testing.T) {
	e := newEnv(t)
	release, stranger := e.keygen(t, "job-release"), e.keygen(t, "job-stranger")
	ref := e.registry + "/addons/hello:0.1.0"
	e.mustAddonpack(t, "push", filepath.Join(e.root, "examples", "hello"), ref, "--key", release+".key")
	rendered := e.mustKubectl(t, nil, "kustomize", filepath.Join(e.root, "examples", "install-job"))
	script := jobScript(t, rendered)
	values := configMapKey(t, rendered, "hello-install", "values.yaml")

	// The Job applies under its own field manager with other values than
	// an earlier test's apply of examples/hello: start from no Deployment.
	deleteHello := func() {
		_, _ = e.kubectlRun(t, nil, "delete", "deployment", "-n", "hello", "hello", "--ignore-not-found", "--wait")
	}
	deleteHello()
	t.Cleanup(deleteHello)

	run := func(t *testing.T, key string) (string, error) {
		pub, err := os.ReadFile(key)
		if err != nil {
			t.Fatal(err)
		}
		return e.runJobScript(t, script, map[string][]byte{"values.yaml": []byte(values), "cosign.pub": pub}, "ADDON_REF="+ref)
	}

	t.Run("another key", func(t *testing.T) {
		out, err := run(t, stranger+".pub")
		if err == nil {
			t.Fatalf("the script succeeded with a key that did not sign %s:\n%s", ref, out)
		}
		if strings.Contains(out, "serverside-applied") {
			t.Fatalf("kubectl applied objects although verification failed:\n%s", out)
		}
		if _, err := e.kubectlRun(t, nil, "get", "deployment", "-n", "hello", "hello"); err == nil {
			t.Fatal("the hello Deployment exists after a failed verification")
		}
	})

	t.Run("the publisher's key", func(t *testing.T) {
		out, err := run(t, release+".pub")
		t.Logf("the Job's script:\n%s", out)
		if err != nil {
			t.Fatalf("the Job's script failed: %v", err)
		}
		if got := e.echoText(t); got != "installed by the addonpack Job" {
			t.Errorf("ECHO_TEXT %q, want the ConfigMap's message", got)
		}
		if r := e.jsonpath(t, "deployment", "hello", "hello", "{.spec.replicas}"); r != "3" {
			t.Errorf("replicas %q, want the ConfigMap's 3", r)
		}
		managers := e.jsonpath(t, "deployment", "hello", "hello", "{.metadata.managedFields[*].manager}")
		if !strings.Contains(managers, "addonpack") {
			t.Errorf("the Deployment's managers %q lack the Job's field manager addonpack", managers)
		}
	})
}
