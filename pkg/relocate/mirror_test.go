package relocate_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// cosignTags returns the digests the .sig and .att tags of d point at in
// repo, and the referrers of d there: the state of a mirror's release.
func cosignState(t *testing.T, c *registry.Client, repo registry.Reference, d ocispec.Descriptor) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, suffix := range []string{sign.TagSuffixSignature, sign.TagSuffixAttestation} {
		ref := repo
		ref.Tag, ref.Digest = sign.CosignTag(d, suffix), ""
		got, err := c.Resolve(ctx, ref)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		out = append(out, suffix+"="+got.Digest.String())
	}
	refs, _, err := c.Referrers(ctx, repo, d, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		out = append(out, "referrer="+r.Digest.String())
	}
	return out
}

// signersOf verifies d at ref under pol and returns the key ids of its
// valid signatures; every candidate must be valid.
func signersOf(t *testing.T, c *registry.Client, ref registry.Reference, d ocispec.Descriptor, pol *verify.Policy) []string {
	t.Helper()
	res, err := verify.Verify(context.Background(), verify.Target{Client: c, Ref: ref}, d, pol)
	if err != nil {
		t.Fatalf("verify %s: %v", ref.WithDigest(d.Digest), err)
	}
	return res.SignedBy
}

// TestRefusedCopyLeavesMirror: the mirror holds hello 0.1.0 signed by the
// publisher. The same bytes (same digest: builds are reproducible) signed by
// an attacker's key, from a tarball or a registry, are refused (exit 9) and
// the mirror's .sig/.att tags and referrers are exactly as they were, so its
// release still verifies (issue 17 item 5).
func TestRefusedCopyLeavesMirror(t *testing.T) {
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			ctx := context.Background()
			c := newClient(t)
			good, evil := newKey(t), newKey(t)
			pol := policyFor(t, good)
			mirrorHost := reg.Start(t)
			mirror, desc := pushSigned(t, c, mirrorHost, "addons/hello", "0.1.0", good)
			repo := registry.Reference{Registry: mirror.Registry, Repository: mirror.Repository}
			before := cosignState(t, c, repo, desc)

			attacker, evilDesc := pushSigned(t, c, testregistry.New(t).Host(), "addons/hello", "0.1.0", evil)
			if evilDesc.Digest != desc.Digest {
				t.Fatalf("not the same bytes: %s, %s", evilDesc.Digest, desc.Digest)
			}
			tarball := filepath.Join(t.TempDir(), "evil.tar")
			if _, err := relocate.ToTarball(ctx, c, attacker, tarball, relocate.Options{}); err != nil {
				t.Fatal(err)
			}
			for name, copyFn := range map[string]func() error{
				"from tarball": func() error {
					_, err := relocate.FromTarball(ctx, c, tarball, repo, relocate.Options{Policy: pol})
					return err
				},
				"from tarball, new tag": func() error {
					_, err := relocate.FromTarball(ctx, c, tarball, registry.Reference{Registry: mirror.Registry, Repository: mirror.Repository, Tag: "latest"}, relocate.Options{Policy: pol})
					return err
				},
				"from registry": func() error {
					_, err := relocate.Copy(ctx, c, attacker, repo, relocate.Options{Policy: pol})
					return err
				},
			} {
				if err := copyFn(); !errors.Is(err, verify.ErrVerification) {
					t.Fatalf("%s: got %v, want a verification failure", name, err)
				}
				if after := cosignState(t, c, repo, desc); strings.Join(after, " ") != strings.Join(before, " ") {
					t.Fatalf("%s: the mirror changed:\n before %v\n after  %v", name, before, after)
				}
				if got := signersOf(t, c, mirror, desc, pol); len(got) != 1 || got[0] != good.ID() {
					t.Fatalf("%s: signed by %v", name, got)
				}
			}
			for _, tag := range []string{"latest"} {
				if _, err := c.Resolve(ctx, registry.Reference{Registry: mirror.Registry, Repository: mirror.Repository, Tag: tag}); !errors.Is(err, registry.ErrNotFound) {
					t.Fatalf("a refused copy set tag %s: %v", tag, err)
				}
			}
		})
	}
}

// TestCopyMergesSignatures: a copy of a release the mirror already holds,
// signed there by another trusted key, adds its signatures to the mirror's
// .sig and .att tags; the mirror's own are kept.
func TestCopyMergesSignatures(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	a, b := newKey(t), newKey(t)
	mirror, desc := pushSigned(t, c, testregistry.New(t).Host(), "addons/hello", "0.1.0", a)
	src, _ := pushSigned(t, c, testregistry.New(t).Host(), "addons/hello", "0.1.0", b)
	if _, err := relocate.Copy(ctx, c, src, registry.Reference{Registry: mirror.Registry, Repository: mirror.Repository}, relocate.Options{Policy: policyFor(t, b)}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{a.ID(), b.ID()} {
		pol := policyFor(t, a)
		if k == b.ID() {
			pol = policyFor(t, b)
		}
		got := signersOf(t, c, mirror, desc, pol)
		if len(got) != 1 || got[0] != k {
			t.Fatalf("under key %s: signed by %v", k, got)
		}
	}
	// Copying again adds nothing.
	before := cosignState(t, c, registry.Reference{Registry: mirror.Registry, Repository: mirror.Repository}, desc)
	if _, err := relocate.Copy(ctx, c, src, registry.Reference{Registry: mirror.Registry, Repository: mirror.Repository}, relocate.Options{Policy: policyFor(t, b)}); err != nil {
		t.Fatal(err)
	}
	if after := cosignState(t, c, registry.Reference{Registry: mirror.Registry, Repository: mirror.Repository}, desc); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Fatalf("a second copy changed the mirror:\n before %v\n after  %v", before, after)
	}
}

// TestCopyTwoFacedSource: a source that answers the .sig tag with the
// publisher's signature the first time and with the attacker's afterwards
// (to the verifier, then to the copy) cannot get the attacker's signature
// into the mirror: the copy verifies and writes one listing.
func TestCopyTwoFacedSource(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	good, evil := newKey(t), newKey(t)
	storage := testregistry.NewMemoryStorage()
	host := testregistry.New(t, testregistry.WithStorage(storage)).Host()
	src, desc := pushSigned(t, c, host, "addons/hello", "0.1.0", good)
	pushSigned(t, c, host, "evil/hello", "0.1.0", evil)
	sigPath := "/v2/addons/hello/manifests/" + sign.CosignTag(desc, sign.TagSuffixSignature)
	var asked atomic.Int32
	inner := testregistry.NewHandler(storage)
	twoFaced := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == sigPath && asked.Add(1) > 1 {
			r.URL.Path = strings.Replace(r.URL.Path, "/addons/hello/", "/evil/hello/", 1)
		} else if strings.HasPrefix(r.URL.Path, "/v2/addons/hello/") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			// content of the evil repository is served here by digest too
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, r.Clone(r.Context()))
			if rec.Code == http.StatusNotFound {
				r.URL.Path = strings.Replace(r.URL.Path, "/addons/hello/", "/evil/hello/", 1)
			}
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(twoFaced.Close)
	from := src
	from.Registry = strings.TrimPrefix(twoFaced.URL, "http://")
	dst := registry.Reference{Registry: testregistry.New(t).Host(), Repository: "mirror/hello"}
	pol := policyFor(t, good)
	if _, err := relocate.Copy(ctx, c, from, dst, relocate.Options{Policy: pol}); err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 1 {
		t.Errorf("the source's .sig tag was resolved %d times, want 1", asked.Load())
	}
	// Every signature at the mirror is the publisher's.
	res, err := verify.Verify(ctx, verify.Target{Client: c, Ref: dst}, desc, pol)
	if err != nil {
		t.Fatal(err)
	}
	for _, cd := range res.Signatures {
		if cd.Verdict != verify.Valid {
			t.Fatalf("the mirror holds a signature that is not the publisher's: %+v", cd)
		}
	}
}
