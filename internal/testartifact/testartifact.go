// Package testartifact publishes add-on artifacts for tests the way
// `addonpack push` and `addonpack sign` do: examples/hello built, pushed to
// a registry and signed, and the policy that trusts the signer.
package testartifact

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Published is an artifact pushed to a registry.
type Published struct {
	Client *registry.Client
	Ref    registry.Reference // as pushed (with its tag)
	Desc   ocispec.Descriptor // the manifest
	Build  *build.Result
}

// ExampleDir is the path of examples/NAME in this repository.
func ExampleDir(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", name)
}

// PushHello builds examples/hello with opts and pushes it to host as
// repo:tag.
func PushHello(tb testing.TB, host, repo, tag string, opts build.Options) Published {
	tb.Helper()
	ctx := context.Background()
	c, err := registry.New(registry.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	store := memory.New()
	res, err := build.Build(ctx, ExampleDir("hello"), store, opts)
	if err != nil {
		tb.Fatal(err)
	}
	ref := registry.Reference{Registry: host, Repository: repo, Tag: tag}
	if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
		tb.Fatal(err)
	}
	return Published{Client: c, Ref: ref, Desc: res.Manifest, Build: res}
}

// Sign signs p with s in each format (classic when none is given).
func Sign(tb testing.TB, p Published, s *keys.Signer, formats ...sign.Format) {
	tb.Helper()
	if len(formats) == 0 {
		formats = []sign.Format{sign.FormatClassic}
	}
	for _, f := range formats {
		if _, err := sign.Sign(context.Background(), sign.Target{Client: p.Client, Ref: p.Ref}, p.Desc, s, sign.Options{Format: f}); err != nil {
			tb.Fatal(err)
		}
	}
}

// Policy trusts the public keys of signers, with opts (provenance rules).
func Policy(tb testing.TB, opts verify.KeyOptions, signers ...*keys.Signer) *verify.Policy {
	tb.Helper()
	var paths []string
	for _, s := range signers {
		p := filepath.Join(tb.TempDir(), "k.pub")
		if err := os.WriteFile(p, s.PublicPEM(), 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, p)
	}
	pol, err := verify.PolicyFromKeys(context.Background(), paths, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return pol
}
