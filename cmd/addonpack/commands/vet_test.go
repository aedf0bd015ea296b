package commands_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/testregistry"
)

// TestVetCommand: push --key by a publisher; vet under the publisher's
// policy with the organisation's key, in both formats; verify, copy and
// copy through a tarball under a downstream policy that trusts only the
// organisation's key and requires its summary; a publisher the upstream
// policy does not trust is refused with exit 9 and nothing written.
func TestVetCommand(t *testing.T) {
	for _, format := range []string{"bundle", "classic"} {
		t.Run(format, func(t *testing.T) {
			host := testregistry.New(t).Host()
			dir := t.TempDir()
			src := filepath.Join(dir, "hello")
			if r := run(t, nil, "init", src); r.code != 0 {
				t.Fatalf("init: %+v", r)
			}
			for _, k := range []string{"publisher", "org", "stranger"} {
				if r := run(t, signEnv, "keygen", "--output-key-prefix", filepath.Join(dir, k)); r.code != 0 {
					t.Fatalf("keygen: %+v", r)
				}
			}
			ref := host + "/upstream/hello:0.1.0"
			if r := run(t, signEnv, "push", src, ref, "--key", filepath.Join(dir, "publisher.key"), "--signature-format", format); r.code != 0 {
				t.Fatalf("push: %+v", r)
			}
			policy := func(file, api, key, extra string) string {
				p := filepath.Join(dir, file)
				doc := "apiVersion: addonpack.dev/" + api + "\nkind: VerificationPolicy\nkeys:\n  - name: k\n    path: " + key + ".pub\nscopes:\n  - keys: [k]\n" + extra
				if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			upstream := policy("upstream.yaml", "v1alpha1", "publisher", "    provenance: {required: true}\n")

			// A publisher the upstream policy does not trust: exit 9, nothing written.
			wrong := policy("wrong.yaml", "v1alpha1", "stranger", "")
			if r := run(t, signEnv, "vet", ref, "--policy", wrong, "--key", filepath.Join(dir, "org.key"), "--signature-format", format); r.code != commands.ExitVerify || !strings.Contains(r.err, "NOT VERIFIED") {
				t.Fatalf("vet under a policy the publisher does not satisfy: %+v", r)
			}
			if r := run(t, nil, "verify", ref, "--key", filepath.Join(dir, "org.pub")); r.code != commands.ExitVerify {
				t.Fatalf("the refused vet signed: %+v", r)
			}
			for _, bad := range [][]string{{"--build-level", "1"}, {"--build-level", "3"}, {"--offline"}, {"--policy", ""}} {
				if r := run(t, signEnv, append([]string{"vet", ref, "--policy", upstream, "--key", filepath.Join(dir, "org.key")}, bad...)...); r.code != commands.ExitUsage {
					t.Fatalf("%v: %+v", bad, r)
				}
			}

			v := run(t, signEnv, "vet", ref, "--policy", upstream, "--key", filepath.Join(dir, "org.key"), "--signature-format", format, "--format", "json")
			if v.code != 0 {
				t.Fatalf("vet: %+v", v)
			}
			var vetted struct {
				Reference, Digest string
				Verification      struct{ Verified bool }
				Signature         struct{ Format, KeyID string }
				Summary           struct{ PredicateType string }
				Predicate         struct {
					Verifier           struct{ ID string }
					ResourceURI        string
					Policy             struct{ URI string }
					VerificationResult string
					VerifiedLevels     []string
				}
			}
			if err := json.Unmarshal([]byte(v.out), &vetted); err != nil {
				t.Fatalf("%v: %s", err, v.out)
			}
			p := vetted.Predicate
			if !vetted.Verification.Verified || vetted.Signature.Format != format || vetted.Summary.PredicateType != "https://slsa.dev/verification_summary/v1" ||
				p.Verifier.ID != "https://addonpack.dev/vet" || p.ResourceURI != host+"/upstream/hello@"+vetted.Digest || p.Policy.URI != "upstream.yaml" ||
				p.VerificationResult != "PASSED" || strings.Join(p.VerifiedLevels, ",") != "SLSA_BUILD_LEVEL_1" {
				t.Fatalf("vet output: %s", v.out)
			}

			down := policy("downstream.yaml", "v1alpha2", "org", "    requireVerificationSummary:\n      verifier: https://addonpack.dev/vet\n")
			check := func(what, ref string) {
				t.Helper()
				r := run(t, nil, "verify", ref, "--policy", down, "--format", "json")
				var out []struct {
					Verified bool
					Result   struct {
						VerificationSummary struct {
							Holds    bool
							Location string
						}
					}
				}
				if err := json.Unmarshal([]byte(r.out), &out); err != nil || r.code != 0 || !out[0].Verified || !out[0].Result.VerificationSummary.Holds {
					t.Fatalf("%s: verify under the downstream policy: %v %+v", what, err, r)
				}
				if r := run(t, nil, "verify", ref, "--policy", upstream); r.code != 0 {
					t.Fatalf("%s: the publisher's policy no longer verifies: %+v", what, r)
				}
			}
			check("vetted", ref)
			if r := run(t, nil, "copy", ref, host+"/vetted/hello", "--policy", down); r.code != 0 {
				t.Fatalf("copy: %+v", r)
			}
			check("copied", host+"/vetted/hello:0.1.0")
			tarball := filepath.Join(dir, "hello.tar")
			if r := run(t, nil, "copy", ref, "--to-tarball", tarball, "--policy", down); r.code != 0 {
				t.Fatalf("copy --to-tarball: %+v", r)
			}
			if r := run(t, nil, "copy", "--from-tarball", tarball, host+"/airgap/hello", "--policy", down); r.code != 0 {
				t.Fatalf("copy --from-tarball: %+v", r)
			}
			check("imported", host+"/airgap/hello:0.1.0")

			// Without the summary (only the organisation's signature), the downstream policy refuses, naming it.
			bare := host + "/bare/hello:0.1.0"
			if r := run(t, signEnv, "push", src, bare, "--key", filepath.Join(dir, "org.key")); r.code != 0 {
				t.Fatalf("push: %+v", r)
			}
			r := run(t, nil, "verify", bare, "--policy", down)
			if r.code != commands.ExitVerify || !strings.Contains(r.err, `verification summary by verifier "https://addonpack.dev/vet" not satisfied`) {
				t.Fatalf("verify without a summary: %+v", r)
			}
		})
	}
}

// TestVetKeyless: vet --keyless signs and attests the summary with a
// Fulcio certificate for the organisation's workflow (bundles, as every
// keyless signature); a downstream policy that trusts only that identity
// under the pinned root and requires the summary verifies the add-on.
func TestVetKeyless(t *testing.T) {
	k := newKeylessCLI(t)
	host := testregistry.New(t).Host()
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	if r := run(t, signEnv, "keygen", "--output-key-prefix", filepath.Join(dir, "publisher")); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	ref := host + "/upstream/hello:0.1.0"
	if r := run(t, signEnv, "push", src, ref, "--key", filepath.Join(dir, "publisher.key")); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	upstream := filepath.Join(dir, "upstream.yaml")
	write := func(path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(upstream, "apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\nkeys:\n  - name: publisher\n    path: publisher.pub\nscopes:\n  - keys: [publisher]\n")
	if r := run(t, signEnv, "vet", ref, "--policy", upstream, "--identity-token", "@"+k.tokenFile, "--signature-format", "classic"); r.code != commands.ExitUsage {
		t.Fatalf("vet --keyless --signature-format classic: %+v", r)
	}
	v := run(t, nil, append([]string{"vet", ref, "--policy", upstream, "--identity-token", "@" + k.tokenFile, "--verifier-id", "https://vet.example.com/addons"}, k.flags(true)[1:]...)...)
	if v.code != 0 || !strings.Contains(v.out, k.workflow.Identity().URI) || !strings.Contains(v.out, "SLSA_BUILD_LEVEL_1") {
		t.Fatalf("vet --keyless: %+v", v)
	}
	raw, err := os.ReadFile(k.root)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	down := filepath.Join(dir, "downstream.yaml")
	write(down, "apiVersion: addonpack.dev/v1alpha2\nkind: VerificationPolicy\ntrustedRoots:\n  - name: org\n    path: "+k.root+"\n    digest: sha256:"+hex.EncodeToString(sum[:])+
		"\nidentities:\n  - name: org-workflow\n    issuer: "+testsigstore.GitHubActionsIssuer+"\n    subject: "+k.workflow.Identity().URI+
		"\nscopes:\n  - identities: [org-workflow]\n    requireVerificationSummary:\n      verifier: https://vet.example.com/addons\n")
	if r := run(t, nil, "verify", ref, "--policy", down, "-v"); r.code != 0 || !strings.Contains(r.out, "verification summary by https://vet.example.com/addons holds") {
		t.Fatalf("verify under the downstream policy: %+v", r)
	}
	write(down+".other", strings.Replace(mustRead(t, down), "https://vet.example.com/addons", vetDefaultID, 1))
	if r := run(t, nil, "verify", ref, "--policy", down+".other"); r.code != commands.ExitVerify || !strings.Contains(r.err, `verifier "https://vet.example.com/addons", want "`+vetDefaultID+`"`) {
		t.Fatalf("verify requiring another verifier: %+v", r)
	}
}

const vetDefaultID = "https://addonpack.dev/vet"
