package verify_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/sbom"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// rulesPolicy is a v1alpha2 policy trusting k whose scope has rules.
func rulesPolicy(t *testing.T, k *keys.Signer, rules string) *verify.Policy {
	t.Helper()
	pem := strings.ReplaceAll(strings.TrimSpace(string(k.PublicPEM())), "\n", "\n        ")
	doc := fmt.Sprintf(`apiVersion: addonpack.dev/v1alpha2
kind: VerificationPolicy
keys:
  - name: release
    publicKey: |
        %s
scopes:
  - keys: [release]
    attestations:
%s`, pem, rules)
	p, err := verify.ParsePolicy(context.Background(), []byte(doc), "rules-policy.yaml", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return p
}

// statementWith is an in-toto statement about e's digest.
func statementWith(e env, predicateType string, predicate []byte) []byte {
	return fmt.Appendf(nil, `{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":%q,"digest":{"sha256":%q}}],"predicateType":%q,"predicate":%s}`,
		e.ref.Repo(), e.desc.Digest.Encoded(), predicateType, predicate)
}

func attest(t *testing.T, e env, k *keys.Signer, st []byte) {
	t.Helper()
	if _, err := sign.Attest(context.Background(), e.target, e.desc, k, st, sign.Options{Format: sign.FormatBundle}); err != nil {
		t.Fatal(err)
	}
}

const (
	vulnType = "https://cosign.sigstore.dev/attestation/vuln/v1"
	vexType  = "https://openvex.dev/ns"
	// sourceRule holds for addonpack's own provenance of examples/hello.
	sourceRule = `      - name: from-our-repo
        predicateType: slsaprovenance1
        condition: predicate.buildDefinition.resolvedDependencies.exists(d, d.uri.startsWith("git+https://github.com/example/hello"))
`
	sbomRule = `      - name: sbom-lists-images
        predicateType: cyclonedx
        condition: >-
          addon.images.all(i, predicate.components.exists(c,
            c.properties.exists(p, p.name == "addonpack:image:reference" && p.value == i)))
`
	spdxRule = `      - name: spdx-names-the-addon
        predicateType: spdx
        condition: predicate.packages.exists(p, p.name == addon.name && p.versionInfo == addon.version)
`
	vulnRule = `      - name: no-critical-unless-vex
        predicateType: vuln
        condition: >-
          predicate.scanner.result.all(f, f.severity != "CRITICAL" ||
            ("https://openvex.dev/ns" in attestations &&
             attestations["https://openvex.dev/ns"].exists(v, v.statements.exists(s,
               s.vulnerability.name == f.id && s.status in ["not_affected", "fixed"]))))
`
)

// TestAttestationRules runs each rule on real attestations — addonpack's
// SLSA provenance, the CycloneDX SBOM push --sbom writes, an SPDX document,
// a vulnerability report with and without an OpenVEX statement — signed by
// the scope's key, on both registries.
func TestAttestationRules(t *testing.T) {
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			ctx := context.Background()
			host := reg.Start(t)
			k, other := newKey(t), newKey(t)
			e := pushHello(t, host, "addons/hello", "0.1.0", "")
			mustSign(t, e, k, sign.FormatBundle)
			attest(t, e, k, slsaFor(t, e, "https://ci.example/builder"))
			images := e.res.Addon.Spec.Images
			if len(images) == 0 {
				t.Fatal("examples/hello lists no images: the SBOM rule would hold vacuously")
			}
			sbomOf := func(refs ...string) []byte {
				var imgs []sbom.Image
				for _, r := range refs {
					imgs = append(imgs, sbom.Image{Reference: r, Status: "unresolved"})
				}
				doc, err := sbom.Document(sbom.Input{Name: "hello", Version: "0.1.0", Repository: e.ref.Repo(), Digest: e.desc.Digest, Images: imgs})
				if err != nil {
					t.Fatal(err)
				}
				return statementWith(e, sbom.PredicateType, doc)
			}
			// An SBOM that lists another image than the add-on's.
			attest(t, e, k, sbomOf(append([]string{"registry.example.com/other:1.0"}, images[1:]...)...))
			spdx := fmt.Appendf(nil, `{"spdxVersion":"SPDX-2.3","packages":[{"name":%q,"versionInfo":%q}]}`, e.res.Addon.Metadata.Name, e.res.Addon.Spec.Version)
			attest(t, e, k, statementWith(e, "https://spdx.dev/Document", spdx))
			attest(t, e, k, statementWith(e, vulnType, []byte(`{"scanner":{"uri":"pkg:github/aquasecurity/trivy","result":[{"id":"CVE-2026-0001","severity":"CRITICAL"},{"id":"CVE-2026-0002","severity":"LOW"}]}}`)))

			verifyWith := func(rules string) (*verify.Result, error) {
				return verify.Verify(ctx, e.vt, e.desc, rulesPolicy(t, k, rules))
			}
			// Rules that hold.
			res, err := verifyWith(sourceRule + spdxRule)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rules) != 2 || !res.Rules[0].Holds || !res.Rules[1].Holds || res.Rules[0].Location == "" {
				t.Fatalf("rules: %+v", res.Rules)
			}
			// A provenance from another repository fails, naming scope, rule and type.
			_, err = verifyWith(strings.Replace(sourceRule, "example/hello", "example/other", 1))
			wantRule(t, err, "from-our-repo", "slsaprovenance1", "condition is false")
			// The SBOM misses an image of spec.images; then one lists them all.
			_, err = verifyWith(sbomRule)
			wantRule(t, err, "sbom-lists-images", "cyclonedx", "condition is false")
			attest(t, e, k, sbomOf(images...))
			if res, err := verifyWith(sbomRule); err != nil || !res.Rules[0].Holds {
				t.Fatalf("an SBOM listing every image: %v %+v", err, res)
			}
			// A critical finding and no VEX: refused; then the publisher's VEX covers it.
			_, err = verifyWith(vulnRule)
			wantRule(t, err, "no-critical-unless-vex", "vuln", "condition is false")
			vex := []byte(`{"@context":"https://openvex.dev/ns/v0.2.0","statements":[{"vulnerability":{"name":"CVE-2026-0001"},"status":"not_affected","justification":"vulnerable_code_not_in_execute_path"}]}`)
			// A VEX statement signed by a key outside the scope is not looked at.
			attest(t, e, other, statementWith(e, vexType, vex))
			_, err = verifyWith(vulnRule)
			wantRule(t, err, "no-critical-unless-vex", "vuln", "condition is false")
			attest(t, e, k, statementWith(e, vexType, vex))
			if res, err := verifyWith(vulnRule); err != nil || !res.Rules[0].Holds {
				t.Fatalf("VEX-covered finding: %v %+v", err, res)
			}
			// A rule over a type nobody attested.
			_, err = verifyWith("      - name: test-report\n        predicateType: https://example.com/test-report/v1\n")
			wantRule(t, err, "test-report", "test-report/v1", "no valid attestation of type")
			// The JSON form lists every rule's outcome.
			res, _ = verifyWith(sourceRule + strings.Replace(vulnRule, `"CRITICAL"`, `"LOW"`, 1))
			b, _ := json.Marshal(res)
			var out struct {
				Rules []struct {
					Name    string   `json:"name"`
					Holds   bool     `json:"holds"`
					Reasons []string `json:"reasons"`
				} `json:"rules"`
			}
			if err := json.Unmarshal(b, &out); err != nil || len(out.Rules) != 2 || !out.Rules[0].Holds || out.Rules[1].Holds || len(out.Rules[1].Reasons) == 0 {
				t.Fatalf("JSON rules: %s", b)
			}
		})
	}
}

func wantRule(t *testing.T, err error, rule, predicate, why string) {
	t.Helper()
	wantErr(t, err, verify.ErrAttestation)
	var ve *verify.Error
	if !errors.As(err, &ve) {
		t.Fatalf("not a verify.Error: %v", err)
	}
	msg := err.Error()
	for _, s := range []string{`scope ""`, `rule "` + rule + `"`, predicate, why} {
		if !strings.Contains(msg, s) {
			t.Fatalf("error does not say %q: %v", s, err)
		}
	}
}

// TestAttestationRulesPolicyDigest: rules are part of the policy's
// identity, so the verified-digest cache never answers for another rule.
func TestAttestationRulesPolicyDigest(t *testing.T) {
	k := newKey(t)
	a := rulesPolicy(t, k, sourceRule)
	b := rulesPolicy(t, k, strings.Replace(sourceRule, "example/hello", "example/other", 1))
	if a.Digest() == b.Digest() {
		t.Fatal("two different rules give one policy digest: a cache could answer for the other")
	}
	if rulesPolicy(t, k, sourceRule).Digest() != a.Digest() {
		t.Fatal("the policy digest is not stable")
	}
}
