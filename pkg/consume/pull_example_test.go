package consume_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

// Pull resolves a reference once, lets a Verify hook refuse the digest
// before anything else is fetched, then fetches by digest, checks every blob
// and unpacks atomically.
func ExamplePull() {
	srv := httptest.NewServer(testregistry.NewHandler(testregistry.NewMemoryStorage()))
	defer srv.Close()
	ctx := context.Background()
	store := memory.New()
	res, _ := build.Build(ctx, "../../examples/hello", store, build.Options{})
	c, _ := registry.New(registry.Options{})
	ref, _ := registry.ParseReference(strings.TrimPrefix(srv.URL, "http://") + "/addons/hello:0.1.0")
	c.Push(ctx, store, res.Manifest, ref)

	dir, _ := os.MkdirTemp("", "pull-example-*")
	defer os.RemoveAll(dir)
	out, err := consume.Pull(ctx, artifact.Remote{Client: c, Ref: ref}, filepath.Join(dir, "hello"), consume.PullOptions{
		Verify: func(_ context.Context, d ocispec.Descriptor) error {
			// pkg/verify checks signatures here; this example only looks.
			fmt.Println("verifying", d.Digest == res.Manifest.Digest)
			return nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Addon.Metadata.Name, out.Stats.Files, "files")
	// Output:
	// verifying true
	// hello 9 files
}
