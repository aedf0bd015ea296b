package verify_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sigstore/cosign/v2/pkg/oci"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// release is the GitHub Actions run the keyless tests sign as.
var release = testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/tags/v0.1.0", Workflow: ".github/workflows/release.yml"}

// sigstoreWorld is a private Sigstore and its trusted root, loaded as a
// policy loads it.
type sigstoreWorld struct {
	ss   *testsigstore.Sigstore
	root *verify.TrustedRoot
	path string // trusted_root.json
}

func newSigstoreWorld(t *testing.T, opts testsigstore.RootOptions) sigstoreWorld {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	return rootOf(t, ss, opts)
}

func rootOf(t *testing.T, ss *testsigstore.Sigstore, opts testsigstore.RootOptions) sigstoreWorld {
	t.Helper()
	raw, err := ss.TrustedRootJSON(opts)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trusted_root.json")
	writeFile(t, path, raw)
	r, err := verify.LoadTrustedRoot("test", path, "")
	if err != nil {
		t.Fatal(err)
	}
	return sigstoreWorld{ss: ss, root: r, path: path}
}

// workflowIdentity trusts release's workflow at any tag.
func (w sigstoreWorld) workflowIdentity(name string) verify.Identity {
	id := verify.Identity{Name: name, Root: w.root, Issuer: testsigstore.GitHubActionsIssuer,
		SubjectRegexp: `^https://github\.com/example/hello/\.github/workflows/release\.yml@refs/tags/`}
	id.Extensions.GithubWorkflowRepository = "example/hello"
	return id
}

func keylessPolicy(t *testing.T, threshold int, ids ...verify.Identity) *verify.Policy {
	t.Helper()
	p, err := verify.PolicyFromKeys(context.Background(), nil, verify.KeyOptions{Identities: ids, Threshold: threshold})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// signBundle stores a keyless bundle signature (a cosign sign/v1 statement
// about subjectDigest) as a referrer of e's manifest.
func (w sigstoreWorld) signBundle(t *testing.T, e env, id testsigstore.Identity, subjectDigest string, o testsigstore.SignOptions) {
	t.Helper()
	stmt, err := testsigstore.Statement(e.ref.Repo(), subjectDigest, testsigstore.CosignSignPredicate, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.ss.DSSEBundle(id, stmt, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := testsigstore.WriteBundle(context.Background(), e.ref.WithDigest(e.desc.Digest).String(), b, testsigstore.CosignSignPredicate); err != nil {
		t.Fatal(err)
	}
}

func (w sigstoreWorld) signClassic(t *testing.T, e env, id testsigstore.Identity, o testsigstore.SignOptions) {
	t.Helper()
	sig, err := w.ss.ClassicSignature(id, e.ref.Repo(), e.desc.Digest.String(), o)
	if err != nil {
		t.Fatal(err)
	}
	writeClassic(t, e, sig)
}

func writeClassic(t *testing.T, e env, layers ...oci.Signature) {
	t.Helper()
	if err := testsigstore.WriteClassic(context.Background(), e.ref.WithDigest(e.desc.Digest).String(), layers...); err != nil {
		t.Fatal(err)
	}
}

func testregistryHost(t *testing.T) string { return testregistry.New(t).Host() }
