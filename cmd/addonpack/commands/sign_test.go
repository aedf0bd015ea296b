package commands_test

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// signEnv is the environment of the signing tests: a key password.
var signEnv = map[string]string{"COSIGN_PASSWORD": "test-password"}

// TestSignedPushAndVerify: keygen, push --key (sign + provenance in one
// process), verify with keys and with a policy, in both formats, on both
// registries; and the exit codes of failures.
func TestSignedPushAndVerify(t *testing.T) {
	for _, reg := range bothRegistries {
		for _, format := range []string{"classic", "bundle"} {
			t.Run(reg.name+"/"+format, func(t *testing.T) {
				host := reg.host(t)
				dir := t.TempDir()
				src := filepath.Join(dir, "hello")
				if r := run(t, nil, "init", src); r.code != 0 {
					t.Fatalf("init: %+v", r)
				}
				prefix := filepath.Join(dir, "release")
				if r := run(t, signEnv, "keygen", "--output-key-prefix", prefix); r.code != 0 {
					t.Fatalf("keygen: %+v", r)
				}
				if r := run(t, signEnv, "keygen", "--output-key-prefix", prefix); r.code != commands.ExitConflict {
					t.Fatalf("keygen over existing files: %+v", r)
				}
				ref := host + "/addons/hello:0.1.0"
				env := map[string]string{"COSIGN_PASSWORD": "test-password", "GITHUB_ACTIONS": "true",
					"GITHUB_SERVER_URL": "https://github.com", "GITHUB_WORKFLOW_REF": "example/hello/.github/workflows/release.yml@refs/tags/v0.1.0"}
				p := run(t, env, "push", src, ref, "--key", prefix+".key", "--signature-format", format, "--format", "json")
				if p.code != 0 {
					t.Fatalf("push --key: %+v", p)
				}
				var pushed struct {
					Signatures []struct{ Kind, PredicateType string }
				}
				if err := json.Unmarshal([]byte(p.out), &pushed); err != nil || len(pushed.Signatures) != 2 || pushed.Signatures[1].PredicateType != "https://slsa.dev/provenance/v1" {
					t.Fatalf("push output: %v %s", err, p.out)
				}
				v := run(t, nil, "verify", ref, "--key", prefix+".pub", "--require-provenance",
					"--builder-id", "https://github.com/example/hello/.github/workflows/release.yml@refs/tags/v0.1.0", "--format", "json")
				if v.code != 0 {
					t.Fatalf("verify: %+v", v)
				}
				var list []struct {
					Verified bool
					Result   struct {
						Signatures   []struct{ KeyID, Verdict, Format string }
						Attestations []struct{ KeyID, Verdict, PredicateType string }
					}
				}
				if err := json.Unmarshal([]byte(v.out), &list); err != nil || len(list) != 1 {
					t.Fatalf("verify -o json: %v %s", err, v.out)
				}
				if res := list[0].Result; !list[0].Verified || len(res.Signatures) != 1 ||
					res.Signatures[0].Verdict != "valid" || res.Signatures[0].Format != format || len(res.Attestations) != 1 {
					t.Fatalf("verify -o json: %s", v.out)
				}
				// The wrong builder id fails with the verification exit code and says why with -v.
				if r := run(t, nil, "verify", ref, "--key", prefix+".pub", "--builder-id", "https://evil.example/builder", "-v"); r.code != commands.ExitVerify ||
					!strings.Contains(r.err, "builder") {
					t.Fatalf("wrong builder: %+v", r)
				}
				// Another key: exit 9, and -v names the failing candidate.
				other := filepath.Join(dir, "other")
				run(t, signEnv, "keygen", "--output-key-prefix", other)
				if r := run(t, nil, "verify", ref, "--key", other+".pub", "-v"); r.code != commands.ExitVerify || !strings.Contains(r.err, "why:") {
					t.Fatalf("wrong key: %+v", r)
				}
				// A policy file scoped to this repository.
				pub, _ := os.ReadFile(prefix + ".pub")
				policy := filepath.Join(dir, "policy.yaml")
				doc := "apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\nkeys:\n  - name: release\n    path: release.pub\n" +
					"  - name: other\n    path: other.pub\nscopes:\n  - keys: [other]\n  - prefix: " + host + "/addons\n    keys: [release]\n    provenance:\n      required: true\n"
				_ = pub
				if err := os.WriteFile(policy, []byte(doc), 0o600); err != nil {
					t.Fatal(err)
				}
				if r := run(t, nil, "verify", ref, "--policy", policy); r.code != 0 {
					t.Fatalf("verify --policy: %+v", r)
				}
				// Attest a further attestation and require it.
				pred := filepath.Join(dir, "sbom.json")
				os.WriteFile(pred, []byte(`{"spdxVersion":"SPDX-2.3"}`), 0o600)
				if r := run(t, signEnv, "attest", ref, "--key", prefix+".key", "--predicate", pred, "--type", "spdxjson", "--signature-format", format); r.code != 0 {
					t.Fatalf("attest: %+v", r)
				}
				if r := run(t, nil, "verify", ref, "--key", prefix+".pub", "--require-attestation", "https://spdx.dev/Document"); r.code != 0 {
					t.Fatalf("verify --require-attestation: %+v", r)
				}
				// Unsigned artifact.
				if r := run(t, nil, "push", src, host+"/unsigned/hello:0.1.0"); r.code != 0 {
					t.Fatalf("push: %+v", r)
				}
				if r := run(t, nil, "verify", host+"/unsigned/hello:0.1.0", "--key", prefix+".pub"); r.code != commands.ExitVerify || !strings.Contains(r.err, "no signatures found") {
					t.Fatalf("unsigned: %+v", r)
				}
			})
		}
	}
}

func TestVerifyExitCodes(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "k")
	if r := run(t, signEnv, "keygen", "--output-key-prefix", prefix); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	// A closed port: unreachable, not "verification failed".
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if r := run(t, nil, "verify", addr+"/a/b:1", "--key", prefix+".pub"); r.code != commands.ExitUnreachable {
		t.Fatalf("unreachable: %+v", r)
	}
	if r := run(t, nil, "verify", addr+"/a/b:1"); r.code != commands.ExitUsage {
		t.Fatalf("no key: %+v", r)
	}
	if r := run(t, map[string]string{"COSIGN_PASSWORD": "wrong"}, "sign", addr+"/a/b:1", "--key", prefix+".key"); r.code != commands.ExitInvalid {
		t.Fatalf("wrong password: %+v", r)
	}
	if r := run(t, nil, "sign", addr+"/a/b:1", "--key", prefix+".key"); r.code == 0 || !strings.Contains(r.err, "COSIGN_PASSWORD") {
		t.Fatalf("no password: %+v", r)
	}
	// env:// keys.
	pem, _ := os.ReadFile(prefix + ".key")
	reg := testregistry.New(t)
	src := filepath.Join(dir, "hello")
	run(t, nil, "init", src)
	ref := reg.Host() + "/addons/hello:1"
	if r := run(t, nil, "push", src, ref); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	env := map[string]string{"COSIGN_PASSWORD": "test-password", "SIGNING_KEY": string(pem)}
	if r := run(t, env, "sign", ref, "--key", "env://SIGNING_KEY", "-a", "team=dns"); r.code != 0 {
		t.Fatalf("sign env://: %+v", r)
	}
	if r := run(t, nil, "verify", ref, "--key", prefix+".pub"); r.code != 0 {
		t.Fatalf("verify: %+v", r)
	}
}
