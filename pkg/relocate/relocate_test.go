package relocate_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestCopy copies a signed, attested artifact (both formats) between every
// pair of registries and verifies it at the destination: the referrers API
// on one side, the referrers tag schema of distribution 2.8 on the other.
func TestCopy(t *testing.T) {
	for _, from := range registries {
		for _, to := range registries {
			t.Run(from.Name+"->"+to.Name, func(t *testing.T) {
				ctx := context.Background()
				c := newClient(t)
				s := newKey(t)
				pol := policyFor(t, s)
				src, desc := pushSigned(t, c, from.Start(t), "addons/hello", "0.1.0", s)
				dst := registry.Reference{Registry: to.Start(t), Repository: "mirror/addons/hello"}
				res, err := relocate.Copy(ctx, c, src, dst, relocate.Options{Policy: pol})
				if err != nil {
					t.Fatal(err)
				}
				if res.Digest != desc.Digest || res.Tag != "0.1.0" || !res.SourceVerification.Verified || !res.Verification.Verified {
					t.Fatalf("result: %+v", res)
				}
				kinds := map[string]int{}
				for _, it := range res.Items {
					kinds[it.Kind]++
				}
				if kinds[relocate.KindArtifact] != 1 || kinds[relocate.KindTag] != 2 || kinds[relocate.KindReferrer] != 2 {
					t.Errorf("copied %v, want 1 artifact, 2 cosign tags, 2 referrers", kinds)
				}
				dst.Tag = "0.1.0"
				got, err := c.Resolve(ctx, dst)
				if err != nil || got.Digest != desc.Digest {
					t.Fatalf("destination tag: %v %v", got.Digest, err)
				}
				checkVerified(t, c, dst, desc, pol)
				// A second copy finds everything in place and changes nothing.
				if _, err := relocate.Copy(ctx, c, src, dst, relocate.Options{Policy: pol}); err != nil {
					t.Fatalf("second copy: %v", err)
				}
				checkVerified(t, c, dst, desc, pol)
			})
		}
	}
}

// TestTarballRoundTrip: registry -> OCI layout tarball -> another registry,
// signatures still verify; the tarball is reproducible and `push` reads it.
func TestTarballRoundTrip(t *testing.T) {
	for _, from := range registries {
		for _, to := range registries {
			t.Run(from.Name+"->tarball->"+to.Name, func(t *testing.T) {
				ctx := context.Background()
				c := newClient(t)
				s := newKey(t)
				pol := policyFor(t, s)
				src, desc := pushSigned(t, c, from.Start(t), "addons/hello", "0.1.0", s)
				dir := t.TempDir()
				tarball := filepath.Join(dir, "hello.tar")
				res, err := relocate.ToTarball(ctx, c, src, tarball, relocate.Options{Policy: pol})
				if err != nil {
					t.Fatal(err)
				}
				if !res.SourceVerification.Verified || len(res.Items) != 5 {
					t.Fatalf("to tarball: %+v", res)
				}
				first, _ := os.ReadFile(tarball)
				if _, err := relocate.ToTarball(ctx, c, src, tarball, relocate.Options{}); err != nil {
					t.Fatal(err)
				}
				if second, _ := os.ReadFile(tarball); !bytes.Equal(first, second) {
					t.Error("the tarball is not reproducible")
				}
				if _, d, err := layout.Open(ctx, tarball+":0.1.0"); err != nil || d.Digest != desc.Digest {
					t.Fatalf("layout.Open: %v %v", d.Digest, err)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 1 {
					t.Errorf("temporary files left beside the tarball: %v", entries)
				}

				dst := registry.Reference{Registry: to.Start(t), Repository: "airgap/hello"}
				back, err := relocate.FromTarball(ctx, c, tarball, dst, relocate.Options{Policy: pol})
				if err != nil {
					t.Fatal(err)
				}
				if back.Digest != desc.Digest || back.Tag != "0.1.0" || !back.Verification.Verified {
					t.Fatalf("from tarball: %+v", back)
				}
				checkVerified(t, c, dst, desc, pol)
			})
		}
	}
}

// TestCopyRefuses: an untrusted source is not copied at all; a destination
// outside the policy's scope is copied by digest but never tagged.
func TestCopyRefuses(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	s := newKey(t)
	host := registries[1].Start(t)
	src, desc := pushSigned(t, c, host, "addons/hello", "0.1.0", s)

	dst := registry.Reference{Registry: host, Repository: "untrusted/hello", Tag: "0.1.0"}
	_, err := relocate.Copy(ctx, c, src, dst, relocate.Options{Policy: policyFor(t, newKey(t))})
	if !errors.Is(err, verify.ErrVerification) {
		t.Fatalf("copy with another key: %v", err)
	}
	if _, err := c.Resolve(ctx, dst.WithDigest(desc.Digest)); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("an unverified source was copied: %v", err)
	}

	// A policy scoped to the source repository only: the destination does not verify.
	pub := filepath.Join(t.TempDir(), "k.pub")
	os.WriteFile(pub, s.PublicPEM(), 0o600)
	doc := "apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\nkeys:\n  - name: k\n    path: " + pub +
		"\nscopes:\n  - prefix: " + host + "/addons\n    keys: [k]\n"
	polPath := filepath.Join(t.TempDir(), "policy.yaml")
	os.WriteFile(polPath, []byte(doc), 0o600)
	pol, err := verify.LoadPolicy(ctx, polPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	dst.Repository = "elsewhere/hello"
	if _, err = relocate.Copy(ctx, c, src, dst, relocate.Options{Policy: pol}); !errors.Is(err, verify.ErrNoPolicy) {
		t.Fatalf("copy outside the policy's scope: %v", err)
	}
	if _, err := c.Resolve(ctx, dst); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("the destination was tagged although it did not verify: %v", err)
	}
	if _, err := c.Resolve(ctx, dst.WithDigest(desc.Digest)); err != nil {
		t.Fatalf("the digest was not copied: %v", err)
	}
	// More referrers than allowed: nothing is copied.
	dst.Repository = "capped/hello"
	if _, err := relocate.Copy(ctx, c, src, dst, relocate.Options{MaxReferrers: 1}); !errors.Is(err, relocate.ErrTooMany) || !strings.Contains(err.Error(), desc.Digest.String()) {
		t.Fatalf("copy with MaxReferrers 1 of an artifact with 2 referrers: %v", err)
	}
	if _, err := c.Resolve(ctx, dst.WithDigest(desc.Digest)); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("a capped copy wrote the artifact: %v", err)
	}
	// A destination pinning another digest is refused.
	bad := registry.Reference{Registry: host, Repository: "x/hello", Digest: digest.FromString("other")}
	if _, err := relocate.Copy(ctx, c, src, bad, relocate.Options{}); !errors.Is(err, errdef.ErrDigestMismatch) {
		t.Fatalf("pinned destination: %v", err)
	}
}
