//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fluxWait bounds each wait on a controller: source-controller and
// kustomize-controller act on a spec change within seconds; the margin is for
// two busy cores.
const fluxWait = 3 * time.Minute

// TestFlux: `render --for flux --public-key` objects applied to the cluster,
// consumed by the real source-controller (pulling from the embedded registry
// over plain HTTP and verifying the cosign signature) and kustomize-controller.
//
// The Kustomization never turns Ready here: render sets wait: true and no
// kubelet ever makes the hello Deployment available, so it stays
// "Reconciliation in progress". The test checks instead what was applied: the
// Deployment in the API server, owned by kustomize-controller, with the
// packed default and then the user's value in it.
func TestFlux(t *testing.T) {
	e := newEnv(t)
	release, stranger := e.keygen(t, "release"), e.keygen(t, "stranger")
	ref := e.registry + "/addons/hello:0.1.0"
	e.mustAddonpack(t, "push", filepath.Join(e.root, "examples", "hello"), ref, "--key", release+".key")
	// Registered before the namespaces' cleanups, so it runs after them: the
	// hello Deployment carries the user's values under kustomize-controller's
	// field manager, which a later run's kubectl apply of examples/hello would
	// conflict with.
	t.Cleanup(func() {
		_, _ = e.kubectlRun(t, nil, "delete", "deployment", "-n", "hello", "hello", "--ignore-not-found")
	})
	ns := e.namespace(t, "flux-e2e")
	values := e.writeTemp(t, "values.yaml", []byte("apiVersion: hello.addons.example.com/v1alpha1\nkind: HelloConfig\nspec:\n  replicas: 3\n  message: "+userText+"\n"))

	// Kustomize-controller must be seen applying: an earlier test applied the
	// same Deployment with kubectl.
	e.mustKubectl(t, nil, "delete", "deployment", "-n", "hello", "hello", "--ignore-not-found")

	t.Run("packed defaults", func(t *testing.T) {
		e.mustKubectl(t, []byte(e.mustAddonpack(t, "render", "--for", "flux", ref, "--key", release+".pub", "--public-key", release+".pub", "--namespace", ns)),
			"apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
		e.waitVerified(t, ns, "hello")
		e.waitEchoText(t, "hello from hello")
	})

	t.Run("user values", func(t *testing.T) {
		e.mustKubectl(t, []byte(e.mustAddonpack(t, "render", "--for", "flux", ref, "--key", release+".pub", "--public-key", release+".pub", "--values", values, "--namespace", ns)),
			"apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
		e.waitVerified(t, ns, "hello")
		e.waitEchoText(t, userText)
		replicas := e.mustKubectl(t, nil, "get", "deployment", "-n", "hello", "hello", "-o", "jsonpath={.spec.replicas}")
		if replicas != "3" {
			t.Fatalf("Deployment replicas %q, want the user's 3", replicas)
		}
	})

	// Negative: the secret holds a key that did not sign the artifact.
	// source-controller must refuse it and store no artifact, so
	// kustomize-controller applies nothing from it.
	t.Run("wrong key in the secret", func(t *testing.T) {
		other := e.namespace(t, "flux-e2e-wrongkey")
		// render refuses to hand Flux a key that did not sign the
		// artifact: the objects are rendered with the signer's key, which
		// is then swapped for another in the Secret.
		objects := e.mustAddonpack(t, "render", "--for", "flux", ref, "--key", release+".pub", "--public-key", release+".pub", "--namespace", other)
		e.mustKubectl(t, []byte(swapFluxKey(t, objects, release+".pub", stranger+".pub")),
			"apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
		e.waitRefused(t, other, "hello")
		if rev := e.jsonpath(t, "ocirepository", other, "hello", "{.status.artifact.revision}"); rev != "" {
			t.Fatalf("source-controller stored an artifact (%s) it could not verify", rev)
		}
		if rev := e.jsonpath(t, "kustomization", other, "hello", "{.status.lastAttemptedRevision}"); rev != "" {
			t.Fatalf("kustomize-controller attempted revision %s of an unverified source", rev)
		}
	})

	// An artifact re-pushed under the same tag, signed with another key:
	// render (trusting that key for its own check) pins the new digest, the
	// secret is given back the user's key (render itself would refuse to
	// hand Flux a key that did not sign it), the values stay; source-controller must
	// refuse the new digest and keep serving the verified one, so the
	// Deployment keeps the user's value (the tampered package's default could
	// only show if a Kustomization built it without the user's patch, which
	// the unchanged artifact revision already rules out).
	t.Run("re-pushed with another key", func(t *testing.T) {
		verified := e.jsonpath(t, "ocirepository", ns, "hello", "{.status.artifact.revision}")
		tampered := e.tamperedHello(t)
		e.mustAddonpack(t, "push", tampered, ref, "--key", stranger+".key")
		objects := e.mustAddonpack(t, "render", "--for", "flux", ref, "--key", stranger+".pub", "--public-key", stranger+".pub", "--values", values, "--namespace", ns)
		e.mustKubectl(t, []byte(swapFluxKey(t, objects, stranger+".pub", release+".pub")),
			"apply", "--server-side", "--field-manager", fieldManager, "-f", "-")
		e.waitRefused(t, ns, "hello")
		if rev := e.jsonpath(t, "ocirepository", ns, "hello", "{.status.artifact.revision}"); rev != verified {
			t.Fatalf("source-controller artifact moved from %s to %s after a refused verification", verified, rev)
		}
		if got := e.echoText(t); got != userText {
			t.Fatalf("the Deployment's ECHO_TEXT is %q, want the user's %q kept", got, userText)
		}
	})
}

const (
	userText     = "hi from the end-to-end suite"
	tamperedText = "tampered, signed by a key nobody trusts"
)

// tamperedHello is examples/hello with another packed default message: same
// name and version, so it pushes under the same tag with another digest.
func (e *env) tamperedHello(t *testing.T) string {
	t.Helper()
	src := filepath.Join(e.root, "examples", "hello")
	dst := filepath.Join(e.work, "tampered-hello")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == filepath.Join("config", "defaults.yaml") {
			b = []byte(strings.Replace(string(b), "message: hello from hello", "message: "+tamperedText, 1))
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// keygen writes PREFIX.key and PREFIX.pub in the work directory.
func (e *env) keygen(t *testing.T, name string) string {
	t.Helper()
	prefix := filepath.Join(e.work, name)
	e.mustAddonpack(t, "keygen", "--output-key-prefix", prefix)
	return prefix
}

// namespace creates a namespace named after base and the run. It is never
// deleted: without kube-controller-manager a deleted namespace stays
// Terminating.
func (e *env) namespace(t *testing.T, base string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%d", base, time.Now().UnixNano()%1_000_000_000)
	e.mustKubectl(t, nil, "create", "namespace", ns)
	// The Flux objects go, so a later run on the same cluster does not find
	// them re-applying an old artifact from a registry that is gone. prune
	// off first: pruning would delete the add-on's Namespace, which would stay
	// Terminating for ever without kube-controller-manager.
	t.Cleanup(func() {
		names, _ := e.kubectlRun(t, nil, "get", "kustomization", "-n", ns, "-o", "name")
		for _, k := range strings.Fields(names) {
			_, _ = e.kubectlRun(t, nil, "patch", k, "-n", ns, "--type", "merge", "-p", `{"spec":{"prune":false}}`)
		}
		// Waiting until kustomize-controller has let go: one still
		// reconciling would re-apply what the test deletes next.
		_, _ = e.kubectlRun(t, nil, "delete", "kustomization,ocirepository", "-n", ns, "--all", "--timeout", "60s")
	})
	return ns
}

func (e *env) jsonpath(t *testing.T, kind, ns, name, path string) string {
	t.Helper()
	return e.mustKubectl(t, nil, "get", kind, "-n", ns, name, "-o", "jsonpath="+path)
}

type condition struct {
	Type, Status, Reason, Message string
}

func (e *env) conditions(t *testing.T, kind, ns, name string) map[string]condition {
	t.Helper()
	out, err := e.kubectlRun(t, nil, "get", kind, "-n", ns, name, "-o", "json")
	if err != nil {
		return nil
	}
	var obj struct {
		Status struct {
			Conditions []condition `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%s %s/%s: %v", kind, ns, name, err)
	}
	m := map[string]condition{}
	for _, c := range obj.Status.Conditions {
		m[c.Type] = c
	}
	return m
}

// waitVerified waits for the OCIRepository to be Ready with its signature
// verified, on the generation last applied.
func (e *env) waitVerified(t *testing.T, ns, name string) {
	t.Helper()
	eventually(t, "OCIRepository "+ns+"/"+name+" SourceVerified and Ready", fluxWait, func() (bool, string) {
		c := e.conditions(t, "ocirepository", ns, name)
		gen := e.jsonpath(t, "ocirepository", ns, name, "{.metadata.generation}")
		seen := e.jsonpath(t, "ocirepository", ns, name, "{.status.observedGeneration}")
		return gen == seen && c["SourceVerified"].Status == "True" && c["Ready"].Status == "True", fmt.Sprintf("generation %s observed %s, %s", gen, seen, summarize(c))
	})
}

// waitRefused waits for source-controller to report the verification
// failure of the digest the OCIRepository pins now. (observedGeneration does
// not move while it retries, so the digest in the message ties the failure
// to this spec.)
func (e *env) waitRefused(t *testing.T, ns, name string) {
	t.Helper()
	digest := e.jsonpath(t, "ocirepository", ns, name, "{.spec.ref.digest}")
	eventually(t, "OCIRepository "+ns+"/"+name+" refused by verification", fluxWait, func() (bool, string) {
		c := e.conditions(t, "ocirepository", ns, name)
		ready, verified := c["Ready"], c["SourceVerified"]
		return ready.Status == "False" && verified.Status == "False" && verified.Reason == "VerificationError" &&
			strings.Contains(verified.Message, digest), summarize(c)
	})
	t.Logf("source-controller refused: %s", e.conditions(t, "ocirepository", ns, name)["SourceVerified"].Message)
}

// summarize is a short form of conditions for progress lines.
func summarize(c map[string]condition) string {
	var parts []string
	for _, k := range []string{"Ready", "SourceVerified", "Reconciling", "Stalled"} {
		if v, ok := c[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s (%s)", k, v.Status, v.Reason))
		}
	}
	return strings.Join(parts, ", ")
}

// echoText is the hello Deployment's ECHO_TEXT as stored in the API server
// ("" while it does not exist).
func (e *env) echoText(t *testing.T) string {
	t.Helper()
	out, err := e.kubectlRun(t, nil, "get", "deployment", "-n", "hello", "hello", "-o",
		`jsonpath={.spec.template.spec.containers[0].env[?(@.name=="ECHO_TEXT")].value}`)
	if err != nil {
		return ""
	}
	return out
}

// waitEchoText waits for kustomize-controller to have applied the hello
// Deployment with want as its message.
func (e *env) waitEchoText(t *testing.T, want string) {
	t.Helper()
	eventually(t, "the hello Deployment applied by kustomize-controller with ECHO_TEXT "+want, fluxWait, func() (bool, string) {
		got := e.echoText(t)
		managers, _ := e.kubectlRun(t, nil, "get", "deployment", "-n", "hello", "hello", "-o", "jsonpath={.metadata.managedFields[*].manager}")
		return got == want && strings.Contains(managers, "kustomize-controller"), fmt.Sprintf("ECHO_TEXT %q, field managers %q", got, managers)
	})
}

// swapFluxKey returns rendered Flux objects with the public key in their
// Secret replaced by the one in the PEM file to: render refuses to hand Flux
// a key that did not sign the artifact, so a test of Flux's own refusal
// builds the objects render would never write.
func swapFluxKey(t *testing.T, rendered, from, to string) string {
	t.Helper()
	indented := func(file string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return "    " + strings.Join(strings.Split(strings.TrimSpace(string(b)), "\n"), "\n    ")
	}
	out := strings.Replace(rendered, indented(from), indented(to), 1)
	if out == rendered {
		t.Fatalf("no key of %s in the rendered Secret:\n%s", from, rendered)
	}
	return out
}
