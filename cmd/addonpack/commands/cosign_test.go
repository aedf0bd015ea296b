package commands_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/internal/peertool"
)

// cosignBinary finds the cosign v2 CLI that scripts/install-peers.sh
// installs (see internal/peertool: fails under make test when missing).
func cosignBinary(t *testing.T) string {
	t.Helper()
	return peertool.Path(t, "cosign")
}

// cosign runs the cosign CLI offline: a private HOME and TUF root, a key
// password, no network but the loopback registry.
func cosign(t *testing.T, bin, home string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{
		"HOME=" + home, "TUF_ROOT=" + filepath.Join(home, "tuf"), "COSIGN_PASSWORD=test-password",
		"COSIGN_YES=true", "PATH=" + os.Getenv("PATH"), "DOCKER_CONFIG=" + filepath.Join(home, "docker"),
		"SIGSTORE_NO_CACHE=true", "COSIGN_EXPERIMENTAL=0",
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cosign %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), stderr.String())
	}
	return out.String()
}

// TestCosignInterop proves compatibility both ways on both registries:
// cosign verifies and verify-attestations what addonpack pushed and signed;
// addonpack verifies what cosign signed and attested; keys cross over.
func TestCosignInterop(t *testing.T) {
	bin := cosignBinary(t)
	for _, reg := range bothRegistries {
		t.Run(reg.name, func(t *testing.T) {
			host := reg.host(t)
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			os.MkdirAll(home, 0o700)
			src := filepath.Join(dir, "hello")
			if r := run(t, nil, "init", src); r.code != 0 {
				t.Fatalf("init: %+v", r)
			}
			apKey := filepath.Join(dir, "addonpack")
			if r := run(t, signEnv, "keygen", "--output-key-prefix", apKey); r.code != 0 {
				t.Fatalf("keygen: %+v", r)
			}
			cosignKey := filepath.Join(dir, "cosign")
			cosign(t, bin, home, "generate-key-pair", "--output-key-prefix", cosignKey)

			t.Run("cosign verifies addonpack's signature and provenance", func(t *testing.T) {
				ref := host + "/addons/hello:0.1.0"
				// cosign v2 without --new-bundle-format reads the classic
				// tags: what a consumer on cosign <= 2.x asks the publisher
				// for (internal/interop's matrix covers bundles).
				p := run(t, signEnv, "push", src, ref, "--key", apKey+".key", "--signature-format", "classic")
				if p.code != 0 {
					t.Fatalf("push --key: %+v", p)
				}
				pinned := strings.TrimSpace(p.out)
				cosign(t, bin, home, "verify", "--key", apKey+".pub", "--insecure-ignore-tlog", "--allow-insecure-registry", pinned)
				out := cosign(t, bin, home, "verify-attestation", "--key", apKey+".pub", "--type", "slsaprovenance1",
					"--insecure-ignore-tlog", "--allow-insecure-registry", pinned)
				if !strings.Contains(out, "payload") {
					t.Fatalf("verify-attestation printed %q", out)
				}
				// A cosign-generated key signs in addonpack, and cosign verifies it too.
				if r := run(t, signEnv, "sign", ref, "--key", cosignKey+".key", "--signature-format", "classic"); r.code != 0 {
					t.Fatalf("addonpack sign with a cosign key: %+v", r)
				}
				cosign(t, bin, home, "verify", "--key", cosignKey+".pub", "--insecure-ignore-tlog", "--allow-insecure-registry", pinned)
				if r := run(t, nil, "verify", ref, "--key", cosignKey+".pub", "--key", apKey+".pub", "--require-provenance"); r.code != 0 {
					t.Fatalf("addonpack verify: %+v", r)
				}
			})

			t.Run("addonpack verifies cosign's signature and attestation", func(t *testing.T) {
				ref := host + "/by-cosign/hello:0.1.0"
				p := run(t, nil, "push", src, ref)
				if p.code != 0 {
					t.Fatalf("push: %+v", p)
				}
				pinned := strings.TrimSpace(p.out)
				cosign(t, bin, home, "sign", "--key", cosignKey+".key", "--tlog-upload=false", "--allow-insecure-registry", pinned)
				pred := filepath.Join(dir, "slsa.json")
				os.WriteFile(pred, []byte(`{"buildDefinition":{"buildType":"https://example.com/cosign-test","externalParameters":{}},"runDetails":{"builder":{"id":"https://ci.example/cosign"}}}`), 0o600)
				cosign(t, bin, home, "attest", "--key", cosignKey+".key", "--tlog-upload=false", "--allow-insecure-registry",
					"--predicate", pred, "--type", "slsaprovenance1", pinned)
				if r := run(t, nil, "verify", ref, "--key", cosignKey+".pub", "--require-provenance", "--builder-id", "https://ci.example/cosign", "--format", "json"); r.code != 0 {
					t.Fatalf("addonpack verify of cosign's output: %+v", r)
				}
				if r := run(t, nil, "verify", ref, "--key", apKey+".pub"); r.code != 9 {
					t.Fatalf("addonpack verify with another key: %+v", r)
				}
			})
		})
	}
}
