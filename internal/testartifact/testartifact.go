// Package testartifact publishes add-on artifacts for tests the way
// `addonpack push` and `addonpack sign` do: an add-on source tree (by
// default examples/hello) built, pushed to a registry, signed and attested
// with SLSA provenance in one or both signature storage schemes, and the
// policy that trusts the signer.
package testartifact

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/provenance"
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

// PushHello builds examples/hello with opts and pushes it to host as
// repo:tag with a client of its own.
func PushHello(tb testing.TB, host, repo, tag string, opts build.Options) Published {
	tb.Helper()
	c, err := registry.New(registry.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return PushDir(tb, c, ExampleDir("hello"), registry.Reference{Registry: host, Repository: repo, Tag: tag}, opts)
}

// PushDir builds the add-on source dir with opts and pushes it, unsigned,
// to ref through c. Builds are reproducible: the same tree pushed under two
// tags is one digest.
func PushDir(tb testing.TB, c *registry.Client, dir string, ref registry.Reference, opts build.Options) Published {
	tb.Helper()
	ctx := context.Background()
	store := memory.New()
	res, err := build.Build(ctx, dir, store, opts)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := c.Push(ctx, store, res.Manifest, ref); err != nil {
		tb.Fatal(err)
	}
	return Published{Client: c, Ref: ref, Desc: res.Manifest, Build: res}
}

// Signed builds dir, pushes it to ref through c, signs it and attests SLSA
// provenance with s in each format (both when none is given), as `addonpack
// push --key` does.
func Signed(tb testing.TB, c *registry.Client, dir string, ref registry.Reference, s *keys.Signer, formats ...sign.Format) Published {
	tb.Helper()
	if len(formats) == 0 {
		formats = []sign.Format{sign.FormatClassic, sign.FormatBundle}
	}
	p := PushDir(tb, c, dir, ref, build.Options{})
	Sign(tb, p, s, formats...)
	Attest(tb, p, s, Provenance(tb, p, "https://ci.example/builder"), formats...)
	return p
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

// Provenance is a SLSA v1 provenance statement for p by builder, from a
// fixed source repository and commit. The add-on is p's (examples/hello
// 0.1.0 when p was not built here).
func Provenance(tb testing.TB, p Published, builder string) []byte {
	tb.Helper()
	name, version := "hello", "0.1.0"
	if p.Build != nil {
		name, version = p.Build.Addon.Metadata.Name, p.Build.Addon.Spec.Version
	}
	st, err := provenance.New(provenance.Facts{
		SubjectName: p.Ref.Repo(), SubjectDigest: p.Desc.Digest,
		AddonName: name, AddonVersion: version,
		Source:    &provenance.Source{URL: "https://github.com/example/hello.git", Commit: "0123456789abcdef0123456789abcdef01234567"},
		BuilderID: builder, StartedOn: time.Now(), FinishedOn: time.Now(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := provenance.Marshal(st)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Attest attaches statement to p, signed with s, in each format (classic
// when none is given).
func Attest(tb testing.TB, p Published, s *keys.Signer, statement []byte, formats ...sign.Format) {
	tb.Helper()
	if len(formats) == 0 {
		formats = []sign.Format{sign.FormatClassic}
	}
	for _, f := range formats {
		if _, err := sign.Attest(context.Background(), sign.Target{Client: p.Client, Ref: p.Ref}, p.Desc, s, statement, sign.Options{Format: f}); err != nil {
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

// SummaryPolicy is a v1alpha2 policy trusting only org's key, whose one
// scope requires a verification summary: rule is the
// requireVerificationSummary block's body, indented by 6.
func SummaryPolicy(tb testing.TB, org *keys.Signer, rule string) *verify.Policy {
	tb.Helper()
	pem := strings.ReplaceAll(strings.TrimSpace(string(org.PublicPEM())), "\n", "\n        ")
	doc := fmt.Sprintf(`apiVersion: addonpack.dev/v1alpha2
kind: VerificationPolicy
keys:
  - name: org
    publicKey: |
        %s
scopes:
  - keys: [org]
    requireVerificationSummary:
%s`, pem, rule)
	p, err := verify.ParsePolicy(context.Background(), []byte(doc), "summary-policy.yaml", nil)
	if err != nil {
		tb.Fatalf("%v\n%s", err, doc)
	}
	return p
}
