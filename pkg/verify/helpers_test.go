package verify_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// registries are the two registries every flow runs against.
var registries = realregistry.Both()

func examplesDir(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", name)
}

type env struct {
	client *registry.Client
	ref    registry.Reference
	target sign.Target
	vt     verify.Target
	desc   ocispec.Descriptor
	res    *build.Result
}

// pushHello builds examples/hello with the given revision and pushes it to
// host under repo:tag.
func pushHello(t *testing.T, host, repo, tag, revision string) env {
	t.Helper()
	ctx := context.Background()
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	res, err := build.Build(ctx, examplesDir("hello"), store, build.Options{Revision: revision})
	if err != nil {
		t.Fatal(err)
	}
	ref := registry.Reference{Registry: host, Repository: repo, Tag: tag}
	if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
		t.Fatal(err)
	}
	desc, err := c.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	return env{client: c, ref: ref, target: sign.Target{Client: c, Ref: ref}, vt: verify.Target{Client: c, Ref: ref}, desc: desc, res: res}
}

func newKey(t *testing.T) *keys.Signer {
	t.Helper()
	s, _, _ := testkey.New(t)
	return s
}

func policyFor(t *testing.T, signers ...*keys.Signer) *verify.Policy {
	t.Helper()
	var refs []string
	for _, s := range signers {
		p := filepath.Join(t.TempDir(), "k.pub")
		writeFile(t, p, s.PublicPEM())
		refs = append(refs, p)
	}
	p, err := verify.PolicyFromKeys(context.Background(), refs, verify.KeyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func slsaFor(t *testing.T, e env, builder string) []byte {
	t.Helper()
	st, err := provenance.New(provenance.Facts{
		SubjectName: e.ref.Repo(), SubjectDigest: e.desc.Digest,
		AddonName: "hello", AddonVersion: "0.1.0",
		Source:    &provenance.Source{URL: "https://github.com/example/hello.git", Commit: "0123456789abcdef0123456789abcdef01234567"},
		BuilderID: builder, StartedOn: time.Now(), FinishedOn: time.Now(),
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := provenance.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
