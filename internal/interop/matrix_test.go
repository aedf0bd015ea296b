package interop_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/addonpack/addonpack/internal/peertool"
	"github.com/addonpack/addonpack/internal/testsigstore"
)

// The signature interop matrix: signer × verifier × storage × registry.
// addonpack's signatures and SLSA attestations, in each storage scheme, key
// and keyless, verified by the real cosign v3.1.3 and v2.6.5 CLIs (each
// with the flags it needs, below) and by addonpack; what cosign v3.1.3 and
// v2.6.5 write with their defaults (signature, SLSA v1 attestation, a custom
// predicate; key and keyless) verified by addonpack under one policy.
// Keyless runs against the test Sigstore's loopback Fulcio, Rekor v1 or
// Rekor v2 (chosen by a signing config) and TSA. Every cell must pass; the
// table of cells is logged (go test -v).

// customPredicateType is the custom predicate cosign attests and
// addonpack's policy requires.
const customPredicateType = "https://example.com/attestation/review/v1"

// matrix records the cells run, for the log.
type matrix struct {
	mu    sync.Mutex
	cells []string
}

func (m *matrix) add(registry, signer, storage, verifier, flags string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cells = append(m.cells, fmt.Sprintf("| %s | %s | %s | %s | %s |", signer, verifier, storage, registry, flags))
}

func (m *matrix) log(t *testing.T) {
	sort.Strings(m.cells)
	t.Logf("\n| signer | verifier | storage | registry | verifier's flags |\n| --- | --- | --- | --- | --- |\n%s", strings.Join(m.cells, "\n"))
}

// sigstoreFixture is the trust both sides share: a key pair, the test
// Sigstore's servers, its trusted root, a signing config naming its
// servers, and a workflow identity.
type sigstoreFixture struct {
	key, pub   string // addonpack keygen output (cosign's encrypted format)
	emptyRoot  string // a trusted root with nothing in it: keys are the trust
	srv        *testsigstore.Servers
	root, sc   string
	scV2       string // a signing config choosing the Rekor v2 log (and the TSA)
	w          testsigstore.GitHubWorkflow
	id         testsigstore.Identity
	builder    string
	slsa, note string // predicate files for cosign attest
}

func newSigstoreFixture(t *testing.T) *sigstoreFixture {
	t.Helper()
	dir := t.TempDir()
	f := &sigstoreFixture{key: filepath.Join(dir, "release")}
	must(t, signEnv, "keygen", "--output-key-prefix", f.key)
	f.pub = f.key + ".pub"
	f.key += ".key"
	f.emptyRoot = filepath.Join(dir, "empty_root.json")
	write(t, f.emptyRoot, `{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`)
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	f.srv = testsigstore.StartServers(t, ss)
	f.root, f.sc, f.scV2 = f.srv.TrustedRootFile(t), f.srv.SigningConfigFile(t), f.srv.SigningConfigRekorV2File(t)
	f.w = testsigstore.GitHubWorkflow{Repository: "example/hello", Workflow: ".github/workflows/release.yml", Ref: "refs/tags/v0.1.0"}
	f.id = f.w.Identity()
	f.builder = f.id.URI
	f.slsa = filepath.Join(dir, "provenance.json")
	write(t, f.slsa, `{"buildDefinition":{"buildType":"https://example.com/build"},"runDetails":{"builder":{"id":"`+f.builder+`"}}}`)
	f.note = filepath.Join(dir, "review.json")
	write(t, f.note, `{"reviewer":"someone","approved":true}`)
	return f
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// identityFlags are cosign's flags for the fixture's workflow identity.
func (f *sigstoreFixture) identityFlags() []string {
	return []string{"--certificate-identity", f.id.URI, "--certificate-oidc-issuer", testsigstore.GitHubActionsIssuer}
}

// tokenFile writes an ID token of the workflow identity.
func (f *sigstoreFixture) tokenFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	write(t, p, f.srv.Token(t, f.w.Claims()))
	return p
}

// freshAddon pushes an unsigned hello to host/repo and returns REPO@DIGEST.
func freshAddon(t *testing.T, host, repo string) (pinned, digest string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "hello")
	must(t, nil, "init", src)
	pinned = strings.TrimSpace(must(t, nil, "push", src, host+"/"+repo+":0.1.0"))
	return pinned, pinned[strings.Index(pinned, "@")+1:]
}

// TestSignatureMatrix runs every cell on both registries.
func TestSignatureMatrix(t *testing.T) {
	cosign3, cosign2 := tool(t, peertool.Cosign3), tool(t, peertool.Cosign2)
	f := newSigstoreFixture(t)
	m := &matrix{}
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			host := reg.Start(t)
			t.Run("addonpack signs", func(t *testing.T) { addonpackSigns(t, m, reg.Name, host, f, cosign3, cosign2) })
			t.Run("cosign signs", func(t *testing.T) { cosignSigns(t, m, reg.Name, host, f, cosign3, cosign2) })
		})
	}
	m.log(t)
}
