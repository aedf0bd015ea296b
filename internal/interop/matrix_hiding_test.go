package interop_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/peertool"
)

// TestForeignBundleHidesClassicFromCosign pins down why addonpack reads
// both storage schemes (specs/policy.md, "Bundles never hide nor stand
// in"): a classic signature by release.key, then a bundle signature by
// another key (a co-signer on the default format). cosign v3.1.3 reads only
// the bundle and refuses; cosign v2.6.5 asks for a trusted root because a
// bundle exists; addonpack verifies the classic signature and reports the
// other key's bundle as not trusted, one valid signer.
func TestForeignBundleHidesClassicFromCosign(t *testing.T) {
	cosign3, cosign2 := tool(t, peertool.Cosign3), tool(t, peertool.Cosign2)
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			p := publish(t, reg.Start(t), "addons/hello", "classic")
			other := filepath.Join(p.dir, "other")
			must(t, signEnv, "keygen", "--output-key-prefix", other)
			must(t, signEnv, "sign", p.pinned, "--key", other+".key") // a bundle: the default
			flags := []string{"verify", "--key", p.key + ".pub", "--insecure-ignore-tlog", "--allow-insecure-registry", p.pinned}
			if out := peerFails(t, cosign3, nil, flags...); !strings.Contains(out, "no matching attestations") {
				t.Errorf("cosign v3 refused for another reason:\n%s", out)
			}
			if out := peerFails(t, cosign2, nil, flags...); !strings.Contains(out, "trusted root is required") {
				t.Errorf("cosign v2 refused for another reason:\n%s", out)
			}
			out := must(t, nil, "verify", p.pinned, "--key", p.key+".pub", "--format", "json")
			for _, want := range []string{`"verified": true`, `"verdict": "valid"`, `"verdict": "invalid"`, "none of the 1 trusted keys verifies it"} {
				if !strings.Contains(out, want) {
					t.Fatalf("addonpack verify does not say %s:\n%s", want, out)
				}
			}
			if n := strings.Count(out, `"verdict": "valid"`); n != 2 { // the signature and the provenance
				t.Fatalf("%d valid candidates, want the classic signature and its provenance:\n%s", n, out)
			}
		})
	}
}
