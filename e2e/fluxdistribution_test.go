//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/realregistry"
)

// TestFluxDistribution is TestFlux's first step against CNCF distribution
// 2.8 (Debian's docker-registry, no referrers API) instead of addonpack's own
// registry: source-controller pulls the artifact addonpack pushed there,
// verifies its cosign signature (stored under the referrers tag schema
// where a registry has no referrers API) and kustomize-controller applies
// the add-on with the user's value.
func TestFluxDistribution(t *testing.T) {
	e := newEnv(t)
	dist := realregistry.Start(t, realregistry.Options{})
	release := e.keygen(t, "release")
	ref := dist + "/addons/hello:0.1.0"
	e.mustAddonpack(t, "push", filepath.Join(e.root, "examples", "hello"), ref, "--key", release+".key")
	t.Cleanup(func() {
		_, _ = e.kubectlRun(t, nil, "delete", "deployment", "-n", "hello", "hello", "--ignore-not-found")
	})
	ns := e.namespace(t, "flux-e2e-dist")
	values := e.writeTemp(t, "dist-values.yaml", []byte("apiVersion: hello.addons.example.com/v1alpha1\nkind: HelloConfig\nspec:\n  replicas: 2\n  message: "+userText+" (distribution)\n"))
	e.mustKubectl(t, nil, "delete", "deployment", "-n", "hello", "hello", "--ignore-not-found")

	objects := e.mustAddonpack(t, "render", "--for", "flux", ref, "--key", release+".pub", "--public-key", release+".pub", "--values", values, "--namespace", ns)
	if !strings.Contains(objects, "url: oci://"+dist+"/addons/hello") {
		t.Fatalf("the OCIRepository does not point at distribution (%s):\n%s", dist, objects)
	}
	e.mustKubectl(t, []byte(objects), "apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
	e.waitVerified(t, ns, "hello")
	e.waitEchoText(t, userText+" (distribution)")
	digest := e.jsonpath(t, "ocirepository", ns, "hello", "{.status.artifact.revision}")
	if !strings.Contains(digest, "sha256:") || !strings.Contains(objects, digest[strings.Index(digest, "sha256:"):]) {
		t.Fatalf("source-controller's artifact revision %q is not the digest render pinned", digest)
	}
}
