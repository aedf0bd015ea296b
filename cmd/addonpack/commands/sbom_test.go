package commands_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/peertool"
	"github.com/addonpack/addonpack/testregistry"
)

// TestSBOM: push --sbom attaches a signed CycloneDX SBOM whose image is
// resolved in the (local) registry; the real cosign v3 CLI accepts it with
// --type cyclonedx, as docs/signing.md's command says (the SBOM is a bundle by
// default; cosign v2.6.5 would also need --trusted-root); verify --require-attestation sbom and a policy requiring
// it pass, and fail with exit code 9 on an add-on pushed without one.
func TestSBOM(t *testing.T) {
	bin := peertool.Path(t, peertool.Cosign3)
	host := testregistry.New(t).Host()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	src := filepath.Join(dir, "hello")
	run(t, nil, "init", src)
	dep := filepath.Join(src, "deployment.yaml")
	b, _ := os.ReadFile(dep)
	os.WriteFile(dep, bytes.ReplaceAll(b, []byte("docker.io/hashicorp/http-echo:1.0.0"), []byte(host+"/img/http-echo:stable")), 0o644)
	// Any manifest stands for the image.
	img := run(t, nil, "push", src, host+"/img/http-echo:stable", "--name", "hello")
	if img.code != 0 {
		t.Fatalf("push image: %+v", img)
	}
	imgDigest := strings.TrimSpace(img.out[strings.Index(img.out, "@")+1:])
	key := filepath.Join(dir, "release")
	run(t, signEnv, "keygen", "--output-key-prefix", key)

	if r := run(t, signEnv, "push", src, host+"/addons/hello:0.1.0", "--sbom"); r.code != 2 || !strings.Contains(r.err, "--sbom needs --key") {
		t.Errorf("--sbom without --key: %+v", r)
	}
	p := run(t, signEnv, "push", src, host+"/addons/hello:0.1.0", "--key", key+".key", "--sbom")
	if p.code != 0 || !strings.Contains(p.err, "https://cyclonedx.org/bom") {
		t.Fatalf("push --sbom: %+v", p)
	}
	pinned := strings.TrimSpace(p.out)
	out := cosign(t, bin, home, "verify-attestation", "--key", key+".pub", "--type", "cyclonedx",
		"--insecure-ignore-tlog", "--allow-insecure-registry", pinned)
	if !strings.Contains(out, "payload") {
		t.Fatalf("cosign verify-attestation --type cyclonedx printed %q", out)
	}
	if r := run(t, nil, "verify", pinned, "--key", key+".pub", "--require-attestation", "sbom"); r.code != 0 {
		t.Errorf("verify --require-attestation sbom: %+v", r)
	}
	insp := run(t, nil, "inspect", pinned, "--key", key+".pub")
	for _, s := range []string{"SBOM:", "attached", host + "/img/http-echo:stable", imgDigest} {
		if !strings.Contains(insp.out, s) {
			t.Errorf("inspect lacks %q:\n%s", s, insp.out)
		}
	}
	// With --signatures the SBOM is found in the one listing Describe makes.
	insp = run(t, nil, "inspect", pinned, "--key", key+".pub", "--signatures")
	for _, s := range []string{"SBOM:         attached (https://cyclonedx.org/bom), verified", imgDigest, "https://cyclonedx.org/bom"} {
		if !strings.Contains(insp.out, s) {
			t.Errorf("inspect --signatures lacks %q:\n%s", s, insp.out)
		}
	}

	bare := run(t, signEnv, "push", src, host+"/bare/hello:0.1.0", "--key", key+".key")
	if bare.code != 0 {
		t.Fatalf("push: %+v", bare)
	}
	if r := run(t, nil, "verify", host+"/bare/hello:0.1.0", "--key", key+".pub", "--require-attestation", "sbom"); r.code != 9 || !strings.Contains(r.err, "required attestation missing: no valid attestation of type sbom") || strings.Contains(r.err, "provenance requirement") {
		t.Errorf("no SBOM, --require-attestation sbom: %+v", r)
	}
	policy := filepath.Join(dir, "policy.yaml")
	os.WriteFile(policy, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\nkeys:\n  - name: release\n    path: release.pub\nscopes:\n  - keys: [release]\n    provenance:\n      predicateTypes: [sbom]\n"), 0o644)
	if r := run(t, nil, "verify", host+"/bare/hello:0.1.0", "--policy", policy); r.code != 9 {
		t.Errorf("no SBOM, policy requiring one: %+v", r)
	}
	if r := run(t, nil, "verify", host+"/addons/hello:0.1.0", "--policy", policy); r.code != 0 {
		t.Errorf("SBOM, policy requiring one: %+v", r)
	}
	if insp := run(t, nil, "inspect", host+"/bare/hello:0.1.0"); !strings.Contains(insp.out, "SBOM:         none") {
		t.Errorf("inspect without SBOM:\n%s", insp.out)
	}
}
