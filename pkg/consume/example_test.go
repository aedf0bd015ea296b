package consume_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// Read an add-on verified, cached and by digest: the first pull verifies the
// signature, remembers the pass in the cache and keeps the blobs there;
// offline, the cache alone answers — the tag, the verification and every
// blob.
func Example() {
	ctx := context.Background()
	srv := httptest.NewServer(testregistry.NewHandler(testregistry.NewMemoryStorage()))
	defer srv.Close()
	tmp, _ := os.MkdirTemp("", "consume-example-*")
	defer os.RemoveAll(tmp)

	// A publisher builds, pushes and signs examples/hello.
	c, _ := registry.New(registry.Options{})
	ref, _ := registry.ParseReference(strings.TrimPrefix(srv.URL, "http://") + "/addons/hello:0.1.0")
	store := memory.New()
	built, _ := build.Build(ctx, "../../examples/hello", store, build.Options{})
	c.Push(ctx, store, built.Manifest, ref)
	pair, _ := keys.GenerateKeyPair(keys.StaticPass([]byte("pw")))
	os.WriteFile(filepath.Join(tmp, "k.key"), pair.PrivatePEM, 0o600)
	os.WriteFile(filepath.Join(tmp, "k.pub"), pair.PublicPEM, 0o644)
	signer, _ := keys.LoadSigner(ctx, filepath.Join(tmp, "k.key"), keys.StaticPass([]byte("pw")), nil)
	sign.Sign(ctx, sign.Target{Client: c, Ref: ref}, built.Manifest, signer, sign.Options{})

	// A consumer trusts the publisher's key.
	policy, err := verify.PolicyFromKeys(ctx, []string{filepath.Join(tmp, "k.pub")}, verify.KeyOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ch, _ := cache.Open(filepath.Join(tmp, "cache"))
	opts := consume.Options{Client: c, Cache: ch.WithRecordKey([]byte("0123456789abcdef0123456789abcdef")), Policy: policy}

	a, _ := consume.OpenReference(ref, opts)
	res, err := a.Pull(ctx, filepath.Join(tmp, "hello"), consume.PullOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verified", res.Addon.Metadata.Name, res.Addon.Spec.Version, res.Descriptor.Digest == built.Manifest.Digest)

	srv.Close() // the registry is gone: offline, the cache answers
	opts.Offline = true
	a, _ = consume.OpenReference(ref, opts)
	res, err = a.Pull(ctx, filepath.Join(tmp, "again"), consume.PullOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pulled offline", res.Addon.Metadata.Name, res.Stats.Files, "files")

	// Another key's policy was never checked against this digest: offline,
	// nothing can vouch for it.
	other, _ := keys.GenerateKeyPair(keys.StaticPass([]byte("pw")))
	os.WriteFile(filepath.Join(tmp, "other.pub"), other.PublicPEM, 0o644)
	opts.Policy, _ = verify.PolicyFromKeys(ctx, []string{filepath.Join(tmp, "other.pub")}, verify.KeyOptions{})
	a, _ = consume.OpenReference(ref, opts)
	_, err = a.Load(ctx)
	fmt.Println("other policy offline:", errors.Is(err, cache.ErrOffline))
	// Output:
	// verified hello 0.1.0 true
	// pulled offline hello 9 files
	// other policy offline: true
}
