//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreflight runs addonpack preflight against the real API server: an
// example add-on passes, and each check fails on the add-on made to break
// it, naming what is wrong — a kind nothing serves, a CRD that would stop
// serving a version the installed one serves, a user without rights (--as,
// through SubjectAccessReviews), a kubernetes range that excludes the
// server's v1.34.
func TestPreflight(t *testing.T) {
	e := newEnv(t)
	examples := filepath.Join(e.root, "examples")

	t.Run("examples pass", func(t *testing.T) {
		for _, name := range []string{"hello", "cert-manager"} {
			out, code, stderr := e.preflight(t, filepath.Join(examples, name), "--format", "json")
			var rep struct {
				ServerVersion string
				Passed        bool
				Addons        []struct {
					Checked  struct{ Kinds, AccessReviews int }
					Warnings []struct{ Check, Object string }
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
				t.Fatalf("%s: exit %d, %v\n%s\n%s", name, code, err, out, stderr)
			}
			if !rep.Passed || !strings.HasPrefix(rep.ServerVersion, "v1.34.") || len(rep.Addons) != 1 || rep.Addons[0].Checked.AccessReviews == 0 {
				t.Errorf("%s: report %+v", name, rep)
			}
			if name != "cert-manager" {
				continue
			}
			// Its webhooks call its own Service, which no kubelet runs here.
			warned := false
			for _, w := range rep.Addons[0].Warnings {
				warned = warned || w.Check == "webhook" && strings.Contains(w.Object, "ValidatingWebhookConfiguration")
			}
			if !warned {
				t.Errorf("cert-manager: no webhook warning: %+v", rep.Addons[0].Warnings)
			}
		}
	})

	t.Run("a kind not served", func(t *testing.T) {
		dir := e.helloCopy(t, map[string]string{"widget.yaml": "apiVersion: preflight-e2e.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"}, "")
		e.wantFinding(t, dir, "served: preflight-e2e.example.com/v1 Widget hello/w: preflight-e2e.example.com/v1 Widget is not served by the cluster")
	})

	t.Run("a CRD that stops serving a version", func(t *testing.T) {
		installed := crdYAML("v1beta1", "v1")
		e.mustKubectl(t, []byte(installed), "apply", "--server-side", "--field-manager", "preflight-e2e", "-f", "-")
		t.Cleanup(func() {
			_, _ = e.kubectlRun(t, nil, "delete", "crd", "gadgets.preflight-e2e.example.com", "--ignore-not-found")
		})
		e.waitEstablished(t, "gadgets.preflight-e2e.example.com")
		dir := e.helloCopy(t, map[string]string{"crd.yaml": crdYAML("v1")}, "")
		e.wantFinding(t, dir, "crd: apiextensions.k8s.io/v1 CustomResourceDefinition gadgets.preflight-e2e.example.com: the installed CRD serves v1beta1, the add-on's does not")
		// The same CRD, all versions kept: no finding.
		same := e.helloCopy(t, map[string]string{"crd.yaml": installed}, "")
		if out, code, stderr := e.preflight(t, same); code != 0 {
			t.Errorf("the installed CRD itself: exit %d\n%s\n%s", code, out, stderr)
		}
	})

	t.Run("a user without rights", func(t *testing.T) {
		out, code, stderr := e.preflight(t, filepath.Join(examples, "hello"), "--as", "preflight-e2e-nobody")
		if code != 9 {
			t.Fatalf("exit %d, want 9\n%s\n%s", code, out, stderr)
		}
		for _, want := range []string{`access reviewed for user "preflight-e2e-nobody"`,
			`FAIL access: v1 Namespace hello: may not create namespaces "hello" (cluster scope)`,
			`FAIL access: apps/v1 Deployment hello/hello: may not patch deployments.apps "hello" in namespace hello`} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q\n%s", want, out)
			}
		}
	})

	t.Run("a kubernetes range without v1.34", func(t *testing.T) {
		dir := e.helloCopy(t, nil, `kubernetes: ">=1.27.0-0, <1.34.0-0"`)
		e.wantFinding(t, dir, "kubernetes: the add-on supports Kubernetes >=1.27.0-0, <1.34.0-0; the cluster runs 1.34.")
	})
}

// preflight runs bin/addonpack preflight against the suite's cluster.
func (e *env) preflight(t *testing.T, args ...string) (stdout string, code int, stderr string) {
	t.Helper()
	out, err := e.run(t, nil, e.addonpack, append([]string{"preflight", "--kubeconfig", e.kubeconfig}, args...)...)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, 0, ""
	case errors.As(err, &exit):
		return out, exit.ExitCode(), err.Error()
	}
	t.Fatal(err)
	return "", 0, ""
}

// wantFinding requires preflight of dir to exit 9 with exactly one finding,
// the one named.
func (e *env) wantFinding(t *testing.T, dir, want string) {
	t.Helper()
	out, code, stderr := e.preflight(t, dir)
	if code != 9 || !strings.Contains(out, "FAIL "+want) || strings.Count(out, "FAIL ") != 1 {
		t.Fatalf("exit %d, want 9 and the one finding %q\n%s\n%s", code, want, out, stderr)
	}
}

// helloCopy copies examples/hello, adds files as resources of its
// kustomization and, when kubernetes is set, replaces its range with it.
func (e *env) helloCopy(t *testing.T, files map[string]string, kubernetes string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hello")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(e.root, "examples", "hello"))); err != nil {
		t.Fatal(err)
	}
	edit := func(name, old, new string) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("%s: %v (no %q)", name, err, old)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		edit("kustomization.yaml", "  - service.yaml\n", "  - service.yaml\n  - "+name+"\n")
	}
	if kubernetes != "" {
		edit("addon.yaml", `kubernetes: ">=1.27.0-0"`, kubernetes)
	}
	return dir
}

// crdYAML is a namespaced CRD serving versions, the last one stored.
func crdYAML(versions ...string) string {
	var b strings.Builder
	b.WriteString(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.preflight-e2e.example.com
spec:
  group: preflight-e2e.example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget, listKind: GadgetList}
  scope: Namespaced
  versions:
`)
	for i, v := range versions {
		storage := "false"
		if i == len(versions)-1 {
			storage = "true"
		}
		b.WriteString(`    - name: ` + v + `
      served: true
      storage: ` + storage + `
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
`)
	}
	return b.String()
}
