package interop_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verifyJSON runs addonpack verify with provenance required and returns the
// formats of the valid candidates.
func verifyJSON(t *testing.T, ref, pub string) map[string]int {
	t.Helper()
	var list []struct {
		Verified bool
		Result   struct {
			Signatures, Attestations []struct{ Format, Verdict string }
		}
	}
	out := must(t, nil, "verify", ref, "--key", pub, "--require-provenance", "--format", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || !list[0].Verified {
		t.Fatalf("verify %s: %v %s", ref, err, out)
	}
	res := list[0].Result
	valid := map[string]int{}
	for _, c := range append(res.Signatures, res.Attestations...) {
		if c.Verdict == "valid" {
			valid[c.Format]++
		}
	}
	return valid
}

// TestCraneCopyWithSignatureTags: `crane copy` of the artifact plus its
// cosign .sig and .att tags keeps it verifiable, by addonpack and by cosign.
func TestCraneCopyWithSignatureTags(t *testing.T) {
	crane := tool(t, "crane")
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			host := reg.Start(t)
			p := publish(t, host, "addons/hello", "classic")
			dst := host + "/crane/hello"
			peer(t, crane, nil, "copy", "--insecure", p.ref, dst+":0.1.0")
			tags := strings.Fields(peer(t, crane, nil, "ls", "--insecure", host+"/addons/hello"))
			copied := 0
			for _, tag := range tags {
				if strings.HasSuffix(tag, ".sig") || strings.HasSuffix(tag, ".att") {
					peer(t, crane, nil, "copy", "--insecure", host+"/addons/hello:"+tag, dst+":"+tag)
					copied++
				}
			}
			if copied != 2 {
				t.Fatalf("crane ls found %d signature tags in %v, want .sig and .att", copied, tags)
			}
			if got := verifyJSON(t, dst+":0.1.0", p.key+".pub"); got["classic"] != 2 {
				t.Fatalf("valid after crane copy: %v", got)
			}
			if cosign := optionalTool("cosign"); cosign != "" {
				peer(t, cosign, nil, "verify", "--key", p.key+".pub", "--insecure-ignore-tlog", "--allow-insecure-registry",
					dst+"@"+p.digest)
			}
		})
	}
}

// TestOrasCopyRecursive: `oras cp -r` copies the Sigstore bundle referrers
// (referrers API or tag schema) and the copy verifies.
func TestOrasCopyRecursive(t *testing.T) {
	oras := tool(t, "oras")
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			host := reg.Start(t)
			p := publish(t, host, "addons/hello", "bundle")
			dst := host + "/oras/hello:0.1.0"
			peer(t, oras, nil, "cp", "-r", "--from-plain-http", "--to-plain-http", p.ref, dst)
			if got := verifyJSON(t, dst, p.key+".pub"); got["bundle"] != 2 {
				t.Fatalf("valid after oras cp -r: %v", got)
			}
		})
	}
}

// TestAddonpackCopyForPeers: what `addonpack copy` writes, cosign verifies
// (classic tags) and oras discovers (bundle referrers) at the destination.
// (cosign v2.6 needs a Sigstore trusted root as soon as it sees a bundle
// referrer, so the cosign check uses a classic-only artifact.)
func TestAddonpackCopyForPeers(t *testing.T) {
	cosign, oras := tool(t, "cosign"), tool(t, "oras")
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			src, dstHost := reg.Start(t), reg.Start(t)
			classic := publish(t, src, "classic/hello", "classic")
			must(t, nil, "copy", classic.ref, dstHost+"/mirror/classic/hello", "--key", classic.key+".pub", "--require-provenance")
			pinned := dstHost + "/mirror/classic/hello@" + classic.digest
			peer(t, cosign, nil, "verify", "--key", classic.key+".pub", "--insecure-ignore-tlog", "--allow-insecure-registry", pinned)
			peer(t, cosign, nil, "verify-attestation", "--key", classic.key+".pub", "--type", "slsaprovenance1",
				"--insecure-ignore-tlog", "--allow-insecure-registry", pinned)

			bundle := publish(t, src, "bundle/hello", "bundle")
			must(t, nil, "copy", bundle.ref, dstHost+"/mirror/bundle/hello", "--key", bundle.key+".pub", "--require-provenance")
			out := peer(t, oras, nil, "discover", "--plain-http", "--format", "json", dstHost+"/mirror/bundle/hello@"+bundle.digest)
			if strings.Count(out, `"artifactType": "application/vnd.dev.sigstore.bundle.v0.3+json"`) != 2 {
				t.Fatalf("oras discover of the copy does not list the two bundles: %s", out)
			}
		})
	}
}

// TestPeersReadCopyTarball: the tarball of `addonpack copy --to-tarball` is
// an ordinary OCI layout archive: skopeo (oci-archive:) and oras
// (--oci-layout) read the artifact from it with its digest and content layer.
func TestPeersReadCopyTarball(t *testing.T) {
	skopeo, oras := tool(t, "skopeo"), tool(t, "oras")
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			p := publish(t, reg.Start(t), "addons/hello", "bundle")
			tarball := filepath.Join(p.dir, "hello.tar")
			must(t, nil, "copy", p.ref, "--to-tarball", tarball, "--key", p.key+".pub")
			dir := filepath.Join(p.dir, "skopeo")
			peer(t, skopeo, nil, "--insecure-policy", "copy", "--preserve-digests", "oci-archive:"+tarball+":0.1.0", "oci:"+dir+":hello")
			if b, _ := os.ReadFile(filepath.Join(dir, "index.json")); !strings.Contains(string(b), p.digest) {
				t.Fatalf("skopeo's copy of the tarball: %s (want %s)", b, p.digest)
			}
			out := filepath.Join(p.dir, "oras")
			peer(t, oras, nil, "pull", "--oci-layout", tarball+":0.1.0", "-o", out)
			if d := sha256File(t, filepath.Join(out, "package.tar.gz")); d != layerDigest(t, p.ref) {
				t.Fatalf("oras pulled %s from the tarball, the layer is %s", d, layerDigest(t, p.ref))
			}
		})
	}
}
