// Package testpush publishes add-ons for tests the way `addonpack push
// --key` does: built from a source tree, pushed, signed and attested with
// SLSA provenance, in one or both signature storage schemes.
package testpush

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

var versionLine = regexp.MustCompile(`(?m)^  version: .*$`)

// Version copies the add-on source dir into a temporary directory with
// spec.version set to v, so that each version has its own digest.
func Version(tb testing.TB, dir, v string) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "src")
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(out, "addon.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, versionLine.ReplaceAll(b, []byte("  version: "+v)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Signed builds dir, pushes it to ref (whose tag it sets) and signs it and
// attests SLSA provenance with s in each format (both when none is given).
// It returns the pushed manifest.
func Signed(tb testing.TB, c *registry.Client, dir string, ref registry.Reference, s *keys.Signer, formats ...sign.Format) ocispec.Descriptor {
	tb.Helper()
	ctx := context.Background()
	desc, res := push(tb, c, dir, ref)
	st, err := provenance.New(provenance.Facts{
		SubjectName: ref.Repo(), SubjectDigest: desc.Digest, AddonName: res.Addon.Metadata.Name, AddonVersion: res.Addon.Spec.Version,
		BuilderID: "https://ci.example/builder", StartedOn: time.Now(), FinishedOn: time.Now(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	stmt, err := provenance.Marshal(st)
	if err != nil {
		tb.Fatal(err)
	}
	if len(formats) == 0 {
		formats = []sign.Format{sign.FormatClassic, sign.FormatBundle}
	}
	tgt := sign.Target{Client: c, Ref: ref}
	for _, f := range formats {
		if _, err := sign.Sign(ctx, tgt, desc, s, sign.Options{Format: f}); err != nil {
			tb.Fatal(err)
		}
		if _, err := sign.Attest(ctx, tgt, desc, s, stmt, sign.Options{Format: f}); err != nil {
			tb.Fatal(err)
		}
	}
	return desc
}

// Push builds dir and pushes it, unsigned, to ref. Builds are reproducible:
// the same tree pushed under two tags is one digest.
func Push(tb testing.TB, c *registry.Client, dir string, ref registry.Reference) ocispec.Descriptor {
	tb.Helper()
	d, _ := push(tb, c, dir, ref)
	return d
}

func push(tb testing.TB, c *registry.Client, dir string, ref registry.Reference) (ocispec.Descriptor, *build.Result) {
	tb.Helper()
	ctx := context.Background()
	store := memory.New()
	res, err := build.Build(ctx, dir, store, build.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
		tb.Fatal(err)
	}
	desc, err := c.Resolve(ctx, ref)
	if err != nil {
		tb.Fatal(err)
	}
	return desc, res
}
