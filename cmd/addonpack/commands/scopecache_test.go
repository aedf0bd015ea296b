package commands_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestVerifiedCacheKeepsScopes: a digest that passed a policy in one scope
// is not taken as verified in another scope of the same policy, even with
// the verified-digest cache warm.
func TestVerifiedCacheKeepsScopes(t *testing.T) {
	reg := testregistry.New(t)
	home := t.TempDir()
	env := map[string]string{"HOME": home, "COSIGN_PASSWORD": "scopes"}
	for _, k := range []string{"dev", "prod"} {
		if r := run(t, env, "keygen", "--output-key-prefix", filepath.Join(home, k)); r.code != 0 {
			t.Fatalf("keygen: %+v", r)
		}
	}
	src := filepath.Join(t.TempDir(), "hello")
	run(t, env, "init", src)
	dev, prod := reg.Host()+"/dev/hello:0.1.0", reg.Host()+"/prod/hello:0.1.0"
	if r := run(t, env, "push", src, dev, "--key", filepath.Join(home, "dev.key")); r.code != 0 {
		t.Fatalf("push dev: %+v", r)
	}
	if r := run(t, env, "push", src, prod); r.code != 0 { // same digest, signed by nobody there
		t.Fatalf("push prod: %+v", r)
	}
	for _, k := range []string{"dev", "prod"} {
		pem, err := os.ReadFile(filepath.Join(home, k+".pub"))
		if err != nil {
			t.Fatal(err)
		}
		env[k+"_PUB"] = string(pem)
	}
	policy := filepath.Join(home, "policy.yaml")
	os.WriteFile(policy, fmt.Appendf(nil, `apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - name: dev
    ref: env://dev_PUB
  - name: prod
    ref: env://prod_PUB
scopes:
  - prefix: %s/dev
    keys: [dev]
  - prefix: %s/prod
    keys: [prod]
`, reg.Host(), reg.Host()), 0o644)
	if r := run(t, env, "render", dev, "--policy", policy); r.code != 0 {
		t.Fatalf("render dev: %+v", r)
	}
	if r := run(t, env, "render", prod, "--policy", policy); r.code != commands.ExitVerify {
		t.Fatalf("the dev verification was reused for the prod scope: %+v", r)
	}
	if r := run(t, env, "verify", dev, prod, "--policy", policy); r.code != commands.ExitVerify {
		t.Fatalf("verify REF... reused the dev verification for prod: %+v", r)
	}
}
