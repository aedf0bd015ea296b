package interop_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
)

// addonpackSigns: `addonpack push` signs and attests (SLSA v1) in each
// storage scheme, key and keyless; cosign v3, cosign v2 and addonpack
// verify the signature and the attestation.
func addonpackSigns(t *testing.T, m *matrix, reg, host string, f *sigstoreFixture, cosign3, cosign2 string) {
	for _, c := range []struct {
		storage          string
		keyless, rekorV2 bool
	}{{"bundle", false, false}, {"classic", false, false}, {"both", false, false}, {"bundle", true, false}, {"bundle", true, true}} {
		auth := "key"
		if c.keyless {
			auth = "keyless"
		}
		if c.rekorV2 {
			auth = "keyless-rekor-v2"
		}
		t.Run(auth+"/"+c.storage, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "hello")
			must(t, nil, "init", src)
			ref := host + "/" + auth + "-" + c.storage + "/hello:0.1.0"
			args := []string{"push", src, ref}
			switch {
			case c.rekorV2:
				// The signing config chooses Fulcio, the Rekor v2 log and
				// the TSA: no URL flags.
				args = append(args, "--keyless", "--identity-token", "@"+f.tokenFile(t), "--signing-config", f.scV2)
			case c.keyless:
				// The default storage: no --signature-format.
				args = append(args, "--keyless", "--identity-token", "@"+f.tokenFile(t),
					"--fulcio-url", f.srv.Fulcio.URL, "--rekor-url", f.srv.Rekor.URL, "--timestamp-server-url", f.srv.TSA.URL)
			case c.storage == "bundle":
				args = append(args, "--key", f.key) // the default storage
			default:
				args = append(args, "--key", f.key, "--signature-format", c.storage)
			}
			v2Before := len(f.srv.RekorV2.Entries())
			pinned := strings.TrimSpace(must(t, signEnv, args...))
			if n := len(f.srv.RekorV2.Entries()); c.rekorV2 && n != v2Before+2 {
				t.Fatalf("push logged %d entries to the Rekor v2 log, want the signature's and the provenance's", n-v2Before)
			}
			digest := pinned[strings.Index(pinned, "@")+1:]
			signer := "addonpack " + strings.ReplaceAll(auth, "-", " ")
			for _, v := range []struct {
				name, bin string
				flags     []string
			}{
				{"cosign v3.1.3", cosign3, cosign3Flags(f, c.storage, c.keyless)},
				{"cosign v2.6.5", cosign2, cosign2Flags(f, c.storage, c.keyless, c.rekorV2)},
			} {
				for _, verb := range [][]string{{"verify"}, {"verify-attestation", "--type", "slsaprovenance1"}} {
					a := append(append(append([]string{}, verb...), v.flags...), "--allow-insecure-registry", pinned)
					if out := peer(t, v.bin, nil, a...); !claims(out, digest) {
						t.Fatalf("%s %s printed no claim about %s:\n%s", v.name, strings.Join(a, " "), digest, out)
					}
				}
				m.add(reg, signer, c.storage, v.name, "`"+strings.Join(displayFlags(f, v.flags), " ")+"`")
			}
			if !c.keyless && c.storage != "both" {
				annotated(t, f, pinned, c.storage, cosign3, cosign2)
			}
			verify := []string{"verify", pinned, "--require-provenance", "--key", f.pub}
			if c.keyless {
				verify = []string{"verify", pinned, "--require-provenance", "--policy", keylessPolicy(t, f.root, f.id)}
			}
			must(t, nil, verify...)
			m.add(reg, signer, c.storage, "addonpack", "`"+strings.Join(displayFlags(f, verify[2:]), " ")+"`")
		})
	}
}

// annotated: `addonpack sign -a team=dns` in storage; cosign v3 (and v2 on
// the classic tag) verifies with -a team=dns and refuses -a team=web. A
// bundle signature's annotations are on its statement's subject, where
// cosign v3 looks (cosign v2.6.5 checks no annotations of a bundle).
func annotated(t *testing.T, f *sigstoreFixture, pinned, storage, cosign3, cosign2 string) {
	t.Helper()
	must(t, signEnv, "sign", pinned, "--key", f.key, "-a", "team=dns", "--signature-format", storage)
	bins := map[string]string{"cosign v3.1.3": cosign3}
	if storage == "classic" {
		bins["cosign v2.6.5"] = cosign2
	}
	for name, bin := range bins {
		a := append(cosign3Flags(f, storage, false), "--allow-insecure-registry", pinned)
		if out := peer(t, bin, nil, append([]string{"verify", "-a", "team=dns"}, a...)...); !claims(out, pinned[strings.Index(pinned, "@")+1:]) {
			t.Fatalf("%s verify -a team=dns printed no claim:\n%s", name, out)
		}
		if out := peerFails(t, bin, nil, append([]string{"verify", "-a", "team=web"}, a...)...); !strings.Contains(out, "missing or incorrect annotation") {
			t.Fatalf("%s verify -a team=web refused for another reason:\n%s", name, out)
		}
	}
}

// cosign3Flags are the flags cosign v3.1.3 needs to verify what addonpack
// stored (besides --allow-insecure-registry for the plain-HTTP test
// registries): it reads bundles by default and falls back to the classic
// tags when there is none. A key signature has no log entry:
// --insecure-ignore-tlog, which also spares cosign the public-good trusted
// root (fetched through TUF otherwise).
func cosign3Flags(f *sigstoreFixture, _ string, keyless bool) []string {
	if keyless {
		return append([]string{"--trusted-root", f.root}, f.identityFlags()...)
	}
	return []string{"--key", f.pub, "--insecure-ignore-tlog"}
}

// cosign2Flags are cosign v2.6.5's. It finds bundle referrers whatever
// --new-bundle-format says and, when there is one, reads only bundles and
// requires a trusted root (an empty one for keys), even when the classic
// tags are there too (format both): the classic tags alone are what it
// reads without one.
//
// A Rekor v2 entry states no time: cosign v3.1 then demands the bundle's
// RFC 3161 timestamp by itself, cosign v2.6.5 only when told
// (--use-signed-timestamps; it requires the log's time otherwise).
func cosign2Flags(f *sigstoreFixture, storage string, keyless, rekorV2 bool) []string {
	if keyless {
		fl := append([]string{"--trusted-root", f.root}, f.identityFlags()...)
		if rekorV2 {
			fl = append(fl, "--use-signed-timestamps")
		}
		return fl
	}
	fl := []string{"--key", f.pub, "--insecure-ignore-tlog"}
	if storage != "classic" {
		fl = append(fl, "--trusted-root", f.emptyRoot)
	}
	return fl
}

// displayFlags names the fixture's files as the README does.
func displayFlags(f *sigstoreFixture, flags []string) []string {
	out := make([]string, len(flags))
	for i, a := range flags {
		switch {
		case a == f.pub:
			a = "release.pub"
		case a == f.emptyRoot:
			a = "empty_root.json"
		case a == f.root:
			a = "trusted_root.json"
		case strings.HasSuffix(a, "policy.yaml"):
			a = "policy.yaml"
		case a == f.id.URI:
			a = "IDENTITY"
		case a == testsigstore.GitHubActionsIssuer:
			a = "ISSUER"
		}
		out[i] = a
	}
	return out
}
