package commands_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/testregistry"
)

// manyRefs is how many signed add-ons TestVerifyManyCosts verifies in one
// call: enough for the batch's concurrency (8) to be busy throughout. The
// 1,000-reference figures (wall time, registry CPU) are the benchmark's
// (bench/cmd/addonbench, docs/performance.md); the counts are per
// reference, so they are pinned here on fewer.
const manyRefs = 50

// TestVerifyManyCosts pins the registry requests of `verify REF...` per
// reference, cold and with the verified-digest cache warm: half the
// add-ons signed and attested in cosign's classic storage (what the
// benchmark's 1,000 use), half as Sigstore bundle referrers (push's
// default). Each has its own version (so its own config blob and digest:
// a blob two references share is fetched once into the cache, by whichever
// comes first), its own repository, and its requests are counted apart, so a request added for
// one reference fails here however the batch interleaves them.
func TestVerifyManyCosts(t *testing.T) {
	reg := testregistry.New(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	key := keyPair(t, filepath.Join(dir, "release"))
	signer, err := keys.LoadSigner(context.Background(), key+".key", keys.StaticPass([]byte(signEnv["COSIGN_PASSWORD"])), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	format := map[string]sign.Format{}
	args := []string{"verify", "--key", key + ".pub", "--require-provenance", "--cache-dir", filepath.Join(dir, "cache")}
	for i := range manyRefs {
		f := []sign.Format{sign.FormatClassic, sign.FormatBundle}[i%2]
		v := fmt.Sprintf("0.1.%d", i)
		ref := registry.Reference{Registry: reg.Host(), Repository: fmt.Sprintf("many/%02d/hello", i), Tag: v}
		p := testartifact.PushDir(t, c, testartifact.Version(t, src, v), ref, build.Options{})
		testartifact.Sign(t, p, signer, f)
		testartifact.Attest(t, p, signer, testartifact.Provenance(t, p, "https://ci.example/builder"), f)
		format[ref.Repository] = f
		args = append(args, ref.String())
	}
	cached := map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "config")}

	// Cold, for each reference: the manifest by tag in one GET (its bytes
	// serve the binding below); the three listings (the .sig and .att
	// tags, the referrers — the bundle referrers first: when they pass,
	// the classic tags are not looked for); what they list — for classic
	// storage the attestation envelope, by digest from the tag's manifest
	// (the signature's payload is the plain claim for the digest, built
	// and matched to its layer's digest, not fetched); for bundles the two
	// bundle manifests, which embed their bundles; then the config blob of the verified digest, to bind the
	// reference to the add-on it names (specs/artifact.md 11.6).
	cold := map[sign.Format][]string{
		sign.FormatClassic: {"GET blob ×2", "GET manifest by .att tag ×1", "GET manifest by .sig tag ×1", "GET manifest by tag ×1", "GET referrers ×1"},
		sign.FormatBundle:  {"GET blob ×1", "GET manifest by digest ×2", "GET manifest by tag ×1", "GET referrers ×1"},
	}
	// Warm: one HEAD sees the tag still names the remembered digest; the
	// pass and the manifest and config come from the cache.
	warm := []string{"HEAD manifest by tag ×1"}
	for _, pass := range []struct {
		name string
		want func(sign.Format) []string
	}{
		{"cold", func(f sign.Format) []string { return cold[f] }},
		{"warm", func(sign.Format) []string { return warm }},
	} {
		r, _ := runCounted(t, reg, cached, args...)
		if r.code != 0 || strings.Count(r.out, "verified ") != manyRefs {
			t.Fatalf("%s: %+v", pass.name, r)
		}
		byRepo := perRepository(reg.Log())
		if len(byRepo) != manyRefs {
			t.Errorf("%s: requests to %d repositories, want %d", pass.name, len(byRepo), manyRefs)
		}
		total := 0
		for repo, reqs := range byRepo {
			total += len(reqs)
			if got, want := counted(reqs), pass.want(format[repo]); !slices.Equal(got, want) {
				t.Errorf("%s: %s (%s) sent %d requests:\n\t%q\nwant:\n\t%q", pass.name, repo, format[repo], len(reqs), got, want)
			}
		}
		t.Logf("%s: %d requests for %d references (%.1f each)", pass.name, total, manyRefs, float64(total)/manyRefs)
	}
}

// perRepository groups the logged requests ("METHOD what", sorted) by the
// repository their path names; the ping and other paths outside a
// repository are grouped under "".
func perRepository(log []testregistry.Request) map[string][]string {
	out := map[string][]string{}
	for _, r := range log {
		repo := ""
		if rest, ok := strings.CutPrefix(r.Path, "/v2/"); ok {
			for _, sep := range []string{"/manifests/", "/blobs/", "/referrers/", "/tags/list"} {
				if i := strings.Index(rest, sep); i >= 0 {
					repo = rest[:i]
					break
				}
			}
		}
		out[repo] = append(out[repo], r.Method+" "+requestKind(r.Path))
	}
	for _, reqs := range out {
		slices.Sort(reqs)
	}
	return out
}

// TestVerifyOneCached: a single reference with a cache is verified afresh
// once and its pass recorded; then the pass stands (text and JSON say
// cached; JSON carries no Result, as in a batch), and -v verifies afresh
// and lists the candidates again.
func TestVerifyOneCached(t *testing.T) {
	reg, dir, src, key, ref := helloWithKey(t)
	if r := run(t, signEnv, "push", src, ref, "--key", key+".key", "--no-cache"); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "config")}
	args := []string{"verify", ref, "--key", key + ".pub", "--require-provenance", "--cache-dir", filepath.Join(dir, "cache")}
	pinned := "VERIFIED: " + reg.Host() + "/addons/hello@sha256:"
	for _, tt := range []struct {
		name   string
		extra  []string
		cached bool
		want   []string
	}{
		{"cold", nil, false, []string{pinned, "1 signature(s), 1 attestation(s) examined"}},
		{"warm", nil, true, []string{pinned, " (cached)\n", "-v or --no-cache checks the signatures again"}},
		{"warm, json", []string{"--format", "json"}, true, []string{`"cached": true`, `"verified": true`}},
		{"warm, -v", []string{"-v"}, false, []string{pinned, "1 signature(s), 1 attestation(s) examined", "- valid bundle signature"}},
	} {
		r := run(t, env, slices.Concat(args, tt.extra)...)
		if r.code != 0 {
			t.Fatalf("%s: %+v", tt.name, r)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.name, w, r.out)
			}
		}
		if cached := strings.Contains(r.out, "cached\"") || strings.Contains(r.out, "(cached)"); cached != tt.cached {
			t.Errorf("%s: cached %v, want %v:\n%s", tt.name, cached, tt.cached, r.out)
		}
		if strings.Contains(r.out, `"result"`) {
			t.Errorf("%s: a remembered pass carries a result:\n%s", tt.name, r.out)
		}
	}
}
