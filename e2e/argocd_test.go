//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestArgoCDApplication: the Application of `render --for argocd` (with and
// without --values, so with and without source.kustomize.patches) is
// accepted by the API server under Argo CD's own Application CRD
// (v3.5.7, fetched by build-cluster.sh from the argo-cd module, its sum
// pinned), by a server-side dry-run with strict field validation. Argo CD's
// controllers are not run here: this proves the object is one Argo CD's API
// admits, field by field, not that Argo CD syncs it.
//
// The negative case, a field Argo CD's schema does not have, is refused:
// without it an API server that admitted anything (no CRD schema, pruning
// silently) would pass the test.
func TestArgoCDApplication(t *testing.T) {
	e := newEnv(t)
	crd := filepath.Join(e.root, "bin", "cluster", "argocd", "application-crd.yaml")
	if !exists(crd) {
		t.Fatalf("%s is missing: scripts/build-cluster.sh argocd-crd fetches it (make e2e runs it)", crd)
	}
	e.mustKubectl(t, nil, "apply", "--server-side", "--field-manager", fieldManager, "-f", crd)
	e.waitEstablished(t, "applications.argoproj.io")
	// The Application's namespace: Argo CD's own, as render writes it.
	_, _ = e.kubectlRun(t, nil, "create", "namespace", "argocd")

	release := e.keygen(t, "release")
	ref := e.registry + "/addons/hello:0.1.0"
	e.mustAddonpack(t, "push", filepath.Join(e.root, "examples", "hello"), ref, "--key", release+".key")
	values := e.writeTemp(t, "argocd-values.yaml", []byte("apiVersion: hello.addons.example.com/v1alpha1\nkind: HelloConfig\nspec:\n  replicas: 2\n  message: "+userText+"\n"))

	dryRun := func(t *testing.T, objects string) (string, error) {
		return e.kubectlRun(t, []byte(objects), "apply", "--server-side", "--dry-run=server", "--validate=strict", "--field-manager", fieldManager, "-o", "name", "-f", "-")
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in the rendered Application
	}{
		{"packed defaults", nil, "targetRevision: sha256:"},
		{"user values", []string{"--values", values}, userText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objects := e.mustAddonpack(t, append([]string{"render", "--for", "argocd", ref, "--key", release + ".pub"}, tc.args...)...)
			if !strings.Contains(objects, "kind: Application") || !strings.Contains(objects, tc.want) {
				t.Fatalf("render --for argocd gave no Application with %q:\n%s", tc.want, objects)
			}
			out, err := dryRun(t, objects)
			if err != nil {
				t.Fatalf("the API server refused the Application under Argo CD's CRD: %v", err)
			}
			if !strings.Contains(out, "application.argoproj.io/") {
				t.Fatalf("dry-run named no Application: %q", out)
			}
		})
	}

	t.Run("a field Argo CD does not have", func(t *testing.T) {
		objects := e.mustAddonpack(t, "render", "--for", "argocd", ref, "--key", release+".pub")
		bad := strings.Replace(objects, "  source:\n", "  source:\n    notAField: true\n", 1)
		if bad == objects {
			t.Fatalf("no source: in the rendered Application:\n%s", objects)
		}
		_, err := dryRun(t, bad)
		if err == nil || !strings.Contains(err.Error(), "notAField") {
			t.Fatalf("an Application with an unknown field was not refused by name: %v", err)
		}
	})
}
