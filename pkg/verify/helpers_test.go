package verify_test

import (
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// registries are the two registries every flow runs against.
var registries = realregistry.Both()

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
	p := testartifact.PushHello(t, host, repo, tag, build.Options{Revision: revision})
	return env{client: p.Client, ref: p.Ref, target: sign.Target{Client: p.Client, Ref: p.Ref}, vt: verify.Target{Client: p.Client, Ref: p.Ref}, desc: p.Desc, res: p.Build}
}

func newKey(t *testing.T) *keys.Signer {
	t.Helper()
	s, _, _ := testkey.New(t)
	return s
}

func policyFor(t *testing.T, signers ...*keys.Signer) *verify.Policy {
	t.Helper()
	return testartifact.Policy(t, verify.KeyOptions{}, signers...)
}

func slsaFor(t *testing.T, e env, builder string) []byte {
	t.Helper()
	return testartifact.Provenance(t, testartifact.Published{Client: e.client, Ref: e.ref, Desc: e.desc}, builder)
}
