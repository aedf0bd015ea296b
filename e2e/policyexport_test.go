//go:build e2e

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestFluxPolicyExport: `policy export --for flux --ref` of a verification
// policy, applied as written, is taken by the real source-controller: the
// OCIRepository with the policy's key verifies the artifact addonpack
// signed (SourceVerified=True, the artifact stored), and the same export of
// a policy trusting another key is refused (VerificationError, no artifact).
func TestFluxPolicyExport(t *testing.T) {
	e := newEnv(t)
	release, stranger := e.keygen(t, "export-release"), e.keygen(t, "export-stranger")
	ref := e.registry + "/addons/hello:0.1.0"
	e.mustAddonpack(t, "push", filepath.Join(e.root, "examples", "hello"), ref, "--key", release+".key")

	for _, tc := range []struct {
		name, key string
		verified  bool
	}{
		{"the signer's key", release, true},
		{"another key", stranger, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy := e.writeTemp(t, "export-"+filepath.Base(tc.key)+".yaml", []byte(fmt.Sprintf(
				"apiVersion: addonpack.dev/v1alpha2\nkind: VerificationPolicy\nkeys: [{name: release, path: %s.pub}]\nscopes: [{prefix: %s/addons, keys: [release]}]\n",
				tc.key, e.registry)))
			ns := e.namespace(t, "flux-e2e-export")
			objects := e.mustAddonpack(t, "policy", "export", policy, "--for", "flux", "--ref", ref, "--name", "hello", "--namespace", ns)
			if !strings.Contains(objects, "insecure: true") || !strings.Contains(objects, "secretRef:") {
				t.Fatalf("the export lacks insecure: true (loopback registry) or the key Secret:\n%s", objects)
			}
			e.mustKubectl(t, []byte(objects), "apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
			if tc.verified {
				e.waitVerified(t, ns, "hello")
				if rev := e.jsonpath(t, "ocirepository", ns, "hello", "{.status.artifact.revision}"); !strings.HasPrefix(rev, "0.1.0@sha256:") {
					t.Fatalf("artifact revision %q, want 0.1.0@sha256:…", rev)
				}
				return
			}
			e.waitRefused(t, ns, "hello")
			if rev := e.jsonpath(t, "ocirepository", ns, "hello", "{.status.artifact.revision}"); rev != "" {
				t.Fatalf("source-controller stored an artifact (%s) no key of the policy signed", rev)
			}
		})
	}
}
