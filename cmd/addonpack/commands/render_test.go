package commands_test

import (
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

const coredns = "../../../examples/coredns"

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/... -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed:\n%s", path, got)
	}
}

func TestRenderVerbs(t *testing.T) {
	reg := testregistry.New(t)
	home := t.TempDir()
	env := map[string]string{"HOME": home, "COSIGN_PASSWORD": "render-test"}
	ref := reg.Host() + "/addons/coredns:1.11.3-addonpack.1"
	if r := run(t, env, "keygen", "--output-key-prefix", filepath.Join(home, "release")); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	pubKey := filepath.Join(home, "release.pub")
	if r := run(t, env, "keygen", "--output-key-prefix", filepath.Join(home, "other")); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	pushed := run(t, env, "push", coredns, ref, "--key", filepath.Join(home, "release.key"))
	if pushed.code != 0 {
		t.Fatalf("push: %+v", pushed)
	}
	_, digest, _ := strings.Cut(strings.TrimSpace(pushed.out), "@")
	custom := filepath.Join(coredns, "config", "custom.yaml")

	// Consumers verify before reading content: trust flags are required, a
	// wrong key fails with the verification exit code, and skipping warns.
	if r := run(t, env, "render", ref); r.code != commands.ExitUsage || !strings.Contains(r.err, "--insecure-skip-verify") {
		t.Fatalf("render without trust flags: %+v", r)
	}
	if r := run(t, env, "--no-cache", "render", ref, "--key", filepath.Join(home, "other.pub")); r.code != commands.ExitVerify {
		t.Fatalf("render with the wrong key: %+v", r)
	}
	if r := run(t, env, "render", ref, "--insecure-skip-verify"); r.code != 0 || !strings.Contains(r.err, "Warning: --insecure-skip-verify") {
		t.Fatalf("render --insecure-skip-verify: %+v", r)
	}

	// YAML from the registry equals YAML from the source directory and the examples' golden file.
	fromRef := run(t, env, "render", ref, "--values", custom, "--key", pubKey)
	fromDir := run(t, env, "render", coredns, "--values", custom)
	want, _ := os.ReadFile(filepath.Join(coredns, "expected", "custom.yaml"))
	if fromRef.code != 0 || fromRef.out != fromDir.out || fromRef.out != string(want) {
		t.Fatalf("render from the registry and from the directory differ or do not match expected/custom.yaml: %+v", fromRef)
	}

	js := run(t, env, "render", ref, "--format", "json", "--key", pubKey)
	var list struct {
		Kind  string
		Items []map[string]any
	}
	if err := json.Unmarshal([]byte(js.out), &list); err != nil || list.Kind != "List" || len(list.Items) == 0 {
		t.Fatalf("--format json: %v %+v", err, js)
	}

	out := filepath.Join(t.TempDir(), "kustomize")
	if r := run(t, env, "render", ref, "--values", custom, "--format", "kustomize", "-o", out, "--key", pubKey); r.code != 0 {
		t.Fatalf("--format kustomize: %+v", r)
	}
	again := run(t, env, "render", out, "--values", custom)
	if again.out != fromRef.out {
		t.Fatalf("the kustomize directory does not build to the same output")
	}
	if r := run(t, env, "render", ref, "--format", "kustomize", "-o", out, "--key", pubKey); r.code != commands.ExitConflict {
		t.Fatalf("writing over a non-empty directory without --force: %+v", r)
	}

	// Every field error is listed, with exit code 3.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: coredns.addons.addonpack.dev/v1alpha1\nkind: CoreDNSConfig\nspec:\n  replicas: 0\n  cacheTTL: 99999\n"), 0o644)
	r := run(t, env, "render", ref, "--values", bad, "--key", pubKey)
	if r.code != commands.ExitInvalid || !strings.Contains(r.err, "spec.replicas") || !strings.Contains(r.err, "spec.cacheTTL") || !strings.Contains(r.err, bad) {
		t.Fatalf("invalid values: %+v", r)
	}

	// config schema reads the config blob only: no content layer request.
	reg.ResetLog()
	s := run(t, env, "--no-cache", "config", "schema", ref, "--key", pubKey)
	if s.code != 0 || !strings.Contains(s.out, `"replicas"`) {
		t.Fatalf("config schema: %+v", s)
	}
	blobGets := 0
	for _, l := range reg.Log() {
		if l.Method == http.MethodGet && strings.Contains(l.Path, "/blobs/") {
			blobGets++
		}
	}
	if blobGets == 0 {
		t.Error("config schema fetched no blob")
	}
	for _, l := range reg.Log() {
		if l.Method == http.MethodGet && strings.Contains(l.Path, "/blobs/") && !strings.Contains(l.Path, "sha256:") {
			t.Errorf("unexpected blob request %s", l.Path)
		}
	}
	if c := run(t, env, "config", "schema", ref, "--format", "crd", "--key", pubKey); c.code != 0 || !strings.Contains(c.out, "kind: CustomResourceDefinition") {
		t.Fatalf("crd: %+v", c)
	}
	d := run(t, env, "config", "defaults", ref, "--key", pubKey)
	if d.code != 0 || !strings.Contains(d.out, "kind: CoreDNSConfig") || !strings.Contains(d.out, "replicas:") {
		t.Fatalf("config defaults: %+v", d)
	}

	// diff: same input, no diff; the custom config differs.
	if r := run(t, env, "diff", ref, coredns, "--exit-code", "--key", pubKey); r.code != 0 || r.out != "" {
		t.Fatalf("diff of the same add-on: %+v", r)
	}
	vs := filepath.Join(t.TempDir(), "replicas.yaml")
	os.WriteFile(vs, []byte("apiVersion: coredns.addons.addonpack.dev/v1alpha1\nkind: CoreDNSConfig\nspec:\n  replicas: 7\n"), 0o644)
	other := filepath.Join(t.TempDir(), "coredns")
	if r := run(t, env, "render", coredns, "--values", vs, "--format", "kustomize", "-o", other); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r := run(t, env, "diff", ref, other, "--exit-code", "--key", pubKey); r.code != commands.ExitFailure || !strings.Contains(r.out, "+  replicas: 7") {
		t.Fatalf("diff of a changed config: %+v", r)
	}

	// Flux and Argo CD objects, pinned by digest. Flux is handed the key
	// that signed the artifact (one that did not is refused, below).
	flux := run(t, env, "render", "--for", "flux", ref, "--public-key", pubKey, "--key", pubKey)
	argo := run(t, env, "render", "--for", "argocd", ref, "--key", pubKey)
	if flux.code != 0 || argo.code != 0 {
		t.Fatalf("--for: %+v %+v", flux, argo)
	}
	// The digest depends on the git revision of examples/coredns, the key
	// on this run: normalise them with the host.
	norm := strings.NewReplacer(reg.Host(), "registry.example:5000", digest, "sha256:DIGEST", indentedPEMBody(t, pubKey), "    MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEexample\n")
	golden(t, "flux.yaml", norm.Replace(flux.out))
	golden(t, "argocd.yaml", norm.Replace(argo.out))
	pluginApp(t, env, ref, pubKey, vs, norm)
	// A key that did not sign the artifact is refused here, not by Flux in
	// the cluster; without a key, stderr says Flux will not verify.
	if r := run(t, env, "render", "--for", "flux", ref, "--public-key", filepath.Join(home, "other.pub"), "--key", pubKey); r.code != commands.ExitVerify || r.out != "" ||
		!strings.Contains(r.err, "--public-key: Flux would refuse "+reg.Host()+"/addons/coredns@"+digest) {
		t.Fatalf("--for flux --public-key of another key: %+v", r)
	}
	if r := run(t, env, "render", "--for", "flux", ref, "--key", pubKey); r.code != 0 || !strings.Contains(r.err, "Flux applies the artifact without verifying its signature") {
		t.Fatalf("--for flux without --public-key: %+v", r)
	}
	if strings.Contains(argo.err, "without verifying") {
		t.Errorf("--for argocd warned about Flux: %s", argo.err)
	}
	// With values: a patch of the CoreDNSConfig object (pkg/deliver's
	// tests build it as the controllers do).
	for _, tool := range []string{"flux", "argocd"} {
		r := run(t, env, "render", "--for", tool, ref, "--values", vs, "--key", pubKey)
		if r.code != 0 || !strings.Contains(r.out, "path: /spec") || !strings.Contains(r.out, "replicas: 7") {
			t.Fatalf("--for %s --values: %+v", tool, r)
		}
		golden(t, tool+"-values.yaml", norm.Replace(r.out))
	}
	// Values that enable nodelocal, whose own replacements read the config
	// before the root's patches run: refused, naming the difference.
	customValues := filepath.Join(coredns, "config", "custom.yaml")
	if r := run(t, env, "render", "--for", "flux", ref, "--values", customValues, "--key", pubKey); r.code != commands.ExitInvalid || !strings.Contains(r.err, "values cannot reach Flux or Argo CD through a patch") || !strings.Contains(r.err, "@@") {
		t.Fatalf("--for with values a patch cannot carry: %+v", r)
	}
}

// indentedPEMBody is the base64 body of the PEM file at path as a Flux
// Secret's data shows it: each line indented by four spaces.
func indentedPEMBody(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "-----") {
			body.WriteString("    " + l + "\n")
		}
	}
	return body.String()
}
