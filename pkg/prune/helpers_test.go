package prune_test

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/prune"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

func hello() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "hello")
}

// fixture is a repository of signed and attested releases.
type fixture struct {
	c       *registry.Client
	repo    registry.Reference
	signer  *keys.Signer
	pubPath string
	digests map[string]ocispec.Descriptor // by version tag
}

// key is a signing key and the path of its public key.
type key struct {
	signer  *keys.Signer
	pubPath string
}

// newKey makes a key; tests with many fixtures share one (a key costs an
// scrypt run to encrypt and another to unlock).
func newKey(t *testing.T) key {
	t.Helper()
	s, _, pub := testkey.New(t)
	return key{s, pub}
}

// publish pushes each version of examples/hello to host/addons/hello,
// signed and attested in both schemes with a fresh key.
func publish(t *testing.T, host string, versions ...string) *fixture {
	t.Helper()
	return publishWith(t, host, newKey(t), versions...)
}

// publishWith is publish with the key k.
func publishWith(t *testing.T, host string, k key, versions ...string) *fixture {
	t.Helper()
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := k.signer
	f := &fixture{c: c, repo: registry.Reference{Registry: host, Repository: "addons/hello"}, signer: s, pubPath: k.pubPath,
		digests: map[string]ocispec.Descriptor{}}
	for _, v := range versions {
		ref := f.repo
		ref.Tag = v
		f.digests[v] = testartifact.Signed(t, c, testartifact.Version(t, hello(), v), ref, s).Desc
	}
	return f
}

func (f *fixture) tags(t *testing.T) []string {
	t.Helper()
	tags, err := f.c.Tags(context.Background(), f.repo, registry.TagLimits{})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(tags)
	return tags
}

// tag points tag at the manifest of version v (pushed again: builds are
// reproducible).
func (f *fixture) tag(t *testing.T, tag, v string) {
	t.Helper()
	ref := f.repo
	ref.Tag = tag
	if d := testartifact.PushDir(t, f.c, testartifact.Version(t, hello(), v), ref, build.Options{}).Desc; d.Digest != f.digests[v].Digest {
		t.Fatalf("%s: pushed %s again as %s, want %s", v, tag, d.Digest, f.digests[v].Digest)
	}
}

// verifies wants the release v verifying in both schemes with provenance.
func (f *fixture) verifies(t *testing.T, v string) {
	t.Helper()
	ref := f.repo
	ref.Tag = v
	d, err := f.c.Resolve(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	f.verifiesRef(t, ref, d)
}

// verifiesRef wants ref, manifest d, verifying in both schemes with provenance.
func (f *fixture) verifiesRef(t *testing.T, ref registry.Reference, d ocispec.Descriptor) {
	t.Helper()
	pol, err := verify.PolicyFromKeys(context.Background(), []string{f.pubPath}, verify.KeyOptions{Provenance: verify.ProvenanceRules{Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify.Verify(context.Background(), verify.Target{Client: f.c, Ref: ref}, d, pol)
	if err != nil {
		t.Fatalf("verify %s: %v", ref, err)
	}
	n := 0
	for _, cd := range append(res.Signatures, res.Attestations...) {
		if cd.Verdict == verify.Valid {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%s: %d valid signatures and attestations, want 4 (classic and bundle of each)", ref, n)
	}
}

// gone wants nothing left of digest d: no manifest, no vouching tag, no referrer.
func (f *fixture) gone(t *testing.T, d digest.Digest) {
	t.Helper()
	ctx := context.Background()
	if _, err := f.c.Resolve(ctx, f.repo.WithDigest(d)); err == nil {
		t.Errorf("manifest %s is still there", d)
	}
	refs, _, err := f.c.Referrers(ctx, f.repo, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: d}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if _, err := f.c.Resolve(ctx, f.repo.WithDigest(r.Digest)); err == nil {
			t.Errorf("referrer %s of deleted %s is still there", r.Digest, d)
		}
	}
	for _, tag := range f.tags(t) {
		if len(tag) >= 71 && tag[7:71] == d.Encoded() {
			t.Errorf("tag %s of deleted %s is still there", tag, d)
		}
	}
}

func plan(t *testing.T, f *fixture, opts prune.Options) *prune.Plan {
	t.Helper()
	p, err := prune.NewPlan(context.Background(), f.c, f.repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
