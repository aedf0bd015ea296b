package commands_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/tally"
	"github.com/addonpack/addonpack/testregistry"
)

// cost is what one verb did: its registry requests, each "METHOD what"
// (requestKind), sorted, and its counted steps (pkg/tally).
type cost struct {
	requests []string
	steps    tally.Counts
}

// runCounted runs the CLI in process, as run does, counting its steps and
// the requests reg logs.
func runCounted(t *testing.T, reg *testregistry.Registry, env map[string]string, args ...string) (result, cost) {
	t.Helper()
	var c tally.Counter
	reg.ResetLog()
	var out, errb bytes.Buffer
	code := commands.Run(tally.With(context.Background(), &c), commands.Streams{In: strings.NewReader(""), Out: &out, Err: &errb},
		func(k string) string { return env[k] }, args)
	var reqs []string
	for _, r := range reg.Log() {
		reqs = append(reqs, r.Method+" "+requestKind(r.Path))
	}
	slices.Sort(reqs)
	return result{out.String(), errb.String(), code}, cost{reqs, c.Counts()}
}

// requestKind names what a distribution-spec path addresses, without the
// repository or the digest: "manifest by tag", "manifest by digest",
// "manifest by .sig/.att tag", "blob", "upload", "referrers", "tags", "ping".
func requestKind(p string) string {
	switch {
	case p == "/v2/" || p == "/v2":
		return "ping"
	case strings.Contains(p, "/blobs/uploads/"):
		return "upload"
	case strings.Contains(p, "/blobs/"):
		return "blob"
	case strings.Contains(p, "/referrers/"):
		return "referrers"
	case strings.HasSuffix(p, "/tags/list"):
		return "tags"
	}
	_, ref, ok := strings.Cut(p, "/manifests/")
	switch {
	case !ok:
		return p
	case strings.HasPrefix(ref, "sha256:"):
		return "manifest by digest"
	case strings.HasPrefix(ref, "sha256-"):
		return "manifest by " + ref[strings.LastIndex(ref, "."):] + " tag"
	}
	return "manifest by tag"
}

// counted renders requests ("METHOD what", sorted) as "METHOD what ×N"
// lines, for pins that read as a protocol.
func counted(reqs []string) []string {
	var out []string
	for i := 0; i < len(reqs); {
		j := i
		for j < len(reqs) && reqs[j] == reqs[i] {
			j++
		}
		out = append(out, fmt.Sprintf("%s ×%d", reqs[i], j-i))
		i = j
	}
	return out
}

// TestVerbCosts pins, for each registry verb on a small signed add-on (the
// `addonpack init` layout: a config type with packed defaults, no
// components), the requests it sends to the registry and the kustomize
// builds, schema compilations and conversion chains it runs. A change that
// adds a request, a render or a compilation fails here and must update the
// pin on purpose, saying why. The verbs run cold (--no-cache) unless the row
// says warm; one registry, so the requests are the protocol's, not a
// client's retry.
// helloWithKey is an embedded registry, a work directory, examples/hello's
// scaffold in it (src), a cosign key pair (key: its path without .key or
// .pub) and the reference the add-on is to be pushed to.
func helloWithKey(t *testing.T) (reg *testregistry.Registry, dir, src, key, ref string) {
	t.Helper()
	reg = testregistry.New(t)
	dir = t.TempDir()
	src = filepath.Join(dir, "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	key = keyPair(t, filepath.Join(dir, "release"))
	return reg, dir, src, key, reg.Host() + "/addons/hello:0.1.0"
}

func TestVerbCosts(t *testing.T) {
	reg, dir, src, key, ref := helloWithKey(t)
	stack := filepath.Join(dir, "stack", "addons.yaml")
	if err := os.MkdirAll(filepath.Dir(stack), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stack, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: "+reg.Host()+"/addons/hello\n    version: \">=0.1.0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A configuration directory keeps the cache's record key across runs,
	// so that the warm rows use the verified-digest cache.
	cached := map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "config")}
	warm, batch, single := filepath.Join(dir, "cache"), filepath.Join(dir, "batch-cache"), filepath.Join(dir, "single-cache")
	mirror := reg.Host() + "/mirror/hello:0.1.0"
	// Another build of the add-on (another description, so another
	// config blob too), so that a batch verifies two digests that share
	// nothing the registry serves: two concurrent reads of one blob may or
	// may not be one.
	other, otherSrc := reg.Host()+"/other/hello:0.1.0", filepath.Join(dir, "other", "hello")
	if r := run(t, nil, "init", otherSrc); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	a, err := os.ReadFile(filepath.Join(otherSrc, "addon.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(otherSrc, "addon.yaml"), []byte(strings.Replace(string(a), "description: ", "description: (other) ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, signEnv, "push", otherSrc, other, "--key", key+".key", "--no-cache"); r.code != 0 {
		t.Fatalf("push %s: %+v", other, r)
	}
	verified := []string{"--key", key + ".pub", "--require-provenance"}

	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		want  []string
		steps tally.Counts
	}{
		// Build: the render check once (the packed defaults are complete,
		// listed and annotated, so it is the standalone build as well) and
		// the config schema once. Push: a HEAD for the config and the layer,
		// and each of the six blobs (config, layer; for the signature and
		// the attestation bundles, bundle and empty config) uploaded in two
		// requests; the two bundles are referrers, written by digest after a
		// HEAD each (the default storage is a Sigstore bundle since cosign
		// v3: no .sig or .att tag).
		{"push signed", signEnv, []string{"push", src, ref, "--key", key + ".key", "--no-cache"},
			[]string{"HEAD blob ×2", "HEAD manifest by digest ×3", "POST upload ×6", "PUT manifest by digest ×2", "PUT manifest by tag ×1", "PUT upload ×6"},
			tally.Counts{KustomizeBuilds: 1, SchemaCompilations: 1}},
		// Verify of one reference: the tag resolved once, with one GET
		// whose manifest bytes are kept for the binding; the referrers API
		// and the two bundle manifests it lists, which embed their bundles
		// (they pass, so cosign's classic .sig and .att tags are not looked
		// for); then the config of the digest, to check it holds the add-on
		// the reference names. -v looks everywhere (the row after next).
		{"verify", nil, slices.Concat([]string{"verify", ref, "--no-cache"}, verified),
			[]string{"GET blob ×1", "GET manifest by digest ×2", "GET manifest by tag ×1", "GET referrers ×1"},
			tally.Counts{}},
		// With a cache, a single reference is verified as one of a batch:
		// cold as above, and the pass recorded; warm, one HEAD (-v still
		// verifies afresh).
		{"verify, cold cache", cached, slices.Concat([]string{"verify", ref, "--cache-dir", single}, verified),
			[]string{"GET blob ×1", "GET manifest by digest ×2", "GET manifest by tag ×1", "GET referrers ×1"},
			tally.Counts{}},
		// -v examines and lists every candidate: the classic tags too.
		{"verify -v", nil, slices.Concat([]string{"verify", ref, "--no-cache", "-v"}, verified),
			[]string{"GET blob ×1", "GET manifest by .att tag ×1", "GET manifest by .sig tag ×1", "GET manifest by digest ×2", "GET manifest by tag ×1", "GET referrers ×1"},
			tally.Counts{}},
		{"verify, warm cache", cached, slices.Concat([]string{"verify", ref, "--cache-dir", single}, verified),
			[]string{"HEAD manifest by tag ×1"}, tally.Counts{}},
		// Pull: the manifest by tag in one GET (no HEAD first), the
		// verification's reads (the referrers and the two bundle manifests;
		// no classic tags, as for verify), then the config and the layer.
		{"pull", nil, slices.Concat([]string{"pull", ref, "-o", filepath.Join(dir, "pulled"), "--no-cache"}, verified),
			[]string{"GET blob ×2", "GET manifest by digest ×2", "GET manifest by tag ×1", "GET referrers ×1"},
			tally.Counts{}},
		{"pull, cold cache", cached, slices.Concat([]string{"pull", ref, "-o", filepath.Join(dir, "pulled-cold"), "--cache-dir", warm}, verified),
			[]string{"GET blob ×2", "GET manifest by digest ×2", "GET manifest by tag ×1", "GET referrers ×1"},
			tally.Counts{}},
		// Warm: one HEAD sees the tag has not moved; the verified digest
		// and the blobs come from the cache.
		{"pull, warm cache", cached, slices.Concat([]string{"pull", ref, "-o", filepath.Join(dir, "pulled-warm"), "--cache-dir", warm}, verified),
			[]string{"HEAD manifest by tag ×1"}, tally.Counts{}},
		// Render: a pull into a private directory, plus a second referrers
		// query (the relocation record 'copy --images' may have left);
		// the schema once and one kustomize build with the packed
		// defaults.
		{"render", nil, slices.Concat([]string{"render", ref, "--no-cache"}, verified),
			[]string{"GET blob ×2", "GET manifest by digest ×2", "GET manifest by tag ×1", "GET referrers ×2"},
			tally.Counts{KustomizeBuilds: 1, SchemaCompilations: 1}},
		// Lock: the repository's tags, the chosen version's manifest,
		// its verification and its config (for dependencies); no render.
		{"lock", nil, []string{"lock", stack, "--key", key + ".pub", "--no-cache"},
			[]string{"GET blob ×1", "GET manifest by .att tag ×1", "GET manifest by .sig tag ×1", "GET manifest by digest ×2", "GET manifest by tag ×1", "GET referrers ×1", "GET tags ×1"},
			tally.Counts{}},
		// Copy: resolve and verify, then the add-on and its two bundle
		// referrers (three manifests, five blobs: the bundles share the
		// empty config) read, checked at the destination and written, and
		// the classic tags looked up at both ends. Each source manifest and
		// blob is read once: the plan, the verification, the binding and
		// the push share what was read (relocate's memo; 61 → 54); the
		// destination's verification reads its own manifests, and takes the
		// bundles from them (54 → 52).
		{"copy", nil, []string{"copy", ref, mirror, "--key", key + ".pub", "--no-cache"},
			[]string{"GET blob ×5", "GET manifest by .att tag ×1", "GET manifest by .sig tag ×1", "GET manifest by digest ×5", "GET referrers ×4",
				"HEAD blob ×6", "HEAD manifest by .att tag ×3", "HEAD manifest by .sbom tag ×3", "HEAD manifest by .sig tag ×3", "HEAD manifest by digest ×6",
				"HEAD manifest by tag ×1", "POST upload ×5", "PUT manifest by digest ×3", "PUT manifest by tag ×1", "PUT upload ×5"},
			tally.Counts{}},
		// A batch verifies each reference as verify does and records the
		// passes; the same batch again is one HEAD per tag.
		{"verify two, cold cache", cached, slices.Concat([]string{"verify", ref, other, "--cache-dir", batch}, verified),
			[]string{"GET blob ×2", "GET manifest by digest ×4", "GET manifest by tag ×2", "GET referrers ×2"},
			tally.Counts{}},
		{"verify two, warm cache", cached, slices.Concat([]string{"verify", ref, other, "--cache-dir", batch}, verified),
			[]string{"HEAD manifest by tag ×2"}, tally.Counts{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, got := runCounted(t, reg, tt.env, tt.args...)
			if r.code != 0 {
				t.Fatalf("%v: %+v", tt.args, r)
			}
			if reqs := counted(got.requests); !slices.Equal(reqs, tt.want) {
				t.Errorf("%s sent %d requests:\n\t%q\nwant:\n\t%q", tt.name, len(got.requests), reqs, tt.want)
			}
			if got.steps != tt.steps {
				t.Errorf("%s: steps %+v, want %+v", tt.name, got.steps, tt.steps)
			}
		})
	}
}

// TestBuildCosts pins the kustomize builds and compilations of `build` for
// each shape of add-on, so that work only the addonpack.dev/v1alpha2
// features need (profiles, conversion) stays off the packages that do not
// use them. hello and greeter-v1 (a config type, complete listed defaults)
// render once: that build is the standalone one too. coredns and
// metrics-server (components) render once more with every component on.
// greeter-v2 (conversion) compiles its older version's schema and the
// chain, and renders once. cluster-autoscaler (profiles; its defaults
// switch components on, so the standalone build is a build of its own)
// renders the defaults, the plain tree, and each of its four profiles as
// its consumer gets it and with every boolean component on.
func TestBuildCosts(t *testing.T) {
	tests := []struct {
		example string
		steps   tally.Counts
	}{
		{"hello", tally.Counts{KustomizeBuilds: 1, SchemaCompilations: 1}},
		{"coredns", tally.Counts{KustomizeBuilds: 2, SchemaCompilations: 1}},
		{"metrics-server", tally.Counts{KustomizeBuilds: 2, SchemaCompilations: 1}},
		{"greeter-v1", tally.Counts{KustomizeBuilds: 1, SchemaCompilations: 1}},
		{"greeter-v2", tally.Counts{KustomizeBuilds: 1, SchemaCompilations: 2, ConversionChains: 1}},
		{"cluster-autoscaler", tally.Counts{KustomizeBuilds: 1 + 1 + 4*2, SchemaCompilations: 1}},
	}
	reg := testregistry.New(t)
	for _, tt := range tests {
		t.Run(tt.example, func(t *testing.T) {
			r, got := runCounted(t, reg, nil, "build", filepath.Join("..", "..", "..", "examples", tt.example), "--no-cache")
			if r.code != 0 {
				t.Fatalf("build: %+v", r)
			}
			if len(got.requests) != 0 {
				t.Errorf("build sent requests: %q", got.requests)
			}
			if got.steps != tt.steps {
				t.Errorf("build %s: steps %+v, want %+v", tt.example, got.steps, tt.steps)
			}
		})
	}
}
