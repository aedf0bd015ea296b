package interop_test

import (
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
)

// cosignSigns: the cosign CLIs sign, attest SLSA v1 provenance and attest a
// custom predicate with their default storage (v3: bundle referrers; v2:
// the classic tags), key and keyless; addonpack verifies all three under
// one policy (the signature, --require-provenance, --require-attestation
// of the custom type).
func cosignSigns(t *testing.T, m *matrix, reg, host string, f *sigstoreFixture, cosign3, cosign2 string) {
	for _, c := range []struct {
		name, bin, storage string
		keyless, rekorV2   bool
		// trust is what the signer needs offline instead of the
		// public-good services (see each case).
		trust func(t *testing.T) []string
	}{
		// cosign v3 takes its services from a signing config (by default
		// the public-good one, through TUF): the test Sigstore's, with its
		// trusted root. With a key it then logs to Rekor and timestamps too.
		{"cosign v3.1.3", cosign3, "bundle", false, false, func(*testing.T) []string {
			return []string{"--key", f.key, "--signing-config", f.sc, "--trusted-root", f.root}
		}},
		{"cosign v3.1.3", cosign3, "bundle", true, false, func(t *testing.T) []string {
			return []string{"--identity-token", f.tokenFile(t), "--signing-config", f.sc, "--trusted-root", f.root}
		}},
		// The signing config that lists the Rekor v2 log: cosign v3 logs
		// there (and timestamps, as Rekor v2 requires).
		{"cosign v3.1.3", cosign3, "bundle", true, true, func(t *testing.T) []string {
			return []string{"--identity-token", f.tokenFile(t), "--signing-config", f.scV2, "--trusted-root", f.root}
		}},
		// cosign v2 logs a key signature to the public Rekor by default:
		// not here (addonpack's key policy does not read the log).
		{"cosign v2.6.5", cosign2, "classic", false, false, func(*testing.T) []string {
			return []string{"--key", f.key, "--tlog-upload=false"}
		}},
		{"cosign v2.6.5", cosign2, "classic", true, false, nil}, // testsigstore.Servers.CosignSign
	} {
		auth := "key"
		if c.keyless {
			auth = "keyless"
		}
		if c.rekorV2 {
			auth = "keyless-rekor-v2"
		}
		t.Run(strings.Fields(c.name)[1]+"/"+auth, func(t *testing.T) {
			v2Before := len(f.srv.RekorV2.Entries())
			pinned, digest := freshAddon(t, host, strings.ReplaceAll(strings.Fields(c.name)[1], ".", "-")+"-"+auth+"/hello")
			for _, att := range []struct{ typ, pred string }{{"", ""}, {"slsaprovenance1", f.slsa}, {customPredicateType, f.note}} {
				if c.trust == nil {
					f.srv.CosignSign(t, c.bin, pinned, f.w.Claims(), testsigstore.CosignOptions{TSA: true, Predicate: att.pred, PredicateType: att.typ})
					continue
				}
				args := []string{"sign"}
				if att.typ != "" {
					args = []string{"attest", "--type", att.typ, "--predicate", att.pred}
				}
				args = append(append(args, c.trust(t)...), "--allow-insecure-registry", "--allow-http-registry", pinned)
				peer(t, c.bin, nil, args...)
			}
			verify := []string{"verify", pinned, "--require-provenance", "--require-attestation", customPredicateType, "--format", "json"}
			if c.keyless {
				verify = append(verify, "--policy", keylessPolicy(t, f.root, f.id))
			} else {
				verify = append(verify, "--key", f.pub)
			}
			out := must(t, nil, verify...)
			// Every signature and attestation cosign wrote is there, valid,
			// in its default storage.
			for _, want := range []string{`"verified": true`, `"format": "` + c.storage + `"`, digest, customPredicateType, "https://slsa.dev/provenance/v1"} {
				if !strings.Contains(out, want) {
					t.Fatalf("addonpack verify of %s's %s output does not say %s:\n%s", c.name, auth, want, out)
				}
			}
			if strings.Contains(out, `"invalid"`) {
				t.Fatalf("addonpack found an invalid candidate in %s's output:\n%s", c.name, out)
			}
			if n := len(f.srv.RekorV2.Entries()); c.rekorV2 && n < v2Before+3 {
				t.Fatalf("cosign logged %d entries to the Rekor v2 log, want its signature and two attestations", n-v2Before)
			}
			m.add(reg, c.name+" "+strings.ReplaceAll(auth, "-", " ")+" (defaults)", c.storage, "addonpack", "`"+strings.Join(displayFlags(f, verify[2:]), " ")+"`")
		})
	}
}
