package registry_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"

	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/addonpack/addonpack/pkg/registry"
)

// Push an artifact built in an oras memory store to a loopback registry,
// then pull it back by digest, verified.
func Example() {
	ctx := context.Background()
	srv := httptest.NewServer(ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://") // loopback: plain HTTP, no flag needed

	// Build the artifact: one layer and an OCI 1.1 image manifest.
	store := memory.New()
	layerBytes := []byte("apiVersion: v1\nkind: ConfigMap\n")
	layer := content.NewDescriptorFromBytes("application/vnd.addonpack.layer.v1+yaml", layerBytes)
	if err := store.Push(ctx, layer, bytes.NewReader(layerBytes)); err != nil {
		log.Fatal(err)
	}
	root, err := oras.PackManifest(ctx, store, oras.PackManifestVersion1_1, "application/vnd.addonpack.addon.v1",
		oras.PackManifestOptions{
			Layers:              []ocispec.Descriptor{layer},
			ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: "2024-01-01T00:00:00Z"},
		})
	if err != nil {
		log.Fatal(err)
	}

	c, err := registry.New(registry.Options{
		UserAgent: "addonpack/1.0.0",
		// The CLI sets DockerConfig instead; this example stays anonymous.
		Credential: func(context.Context, string) (auth.Credential, error) { return auth.EmptyCredential, nil },
	})
	if err != nil {
		log.Fatal(err)
	}
	ref, err := registry.ParseReference(host + "/addons/demo:1.0.0")
	if err != nil {
		log.Fatal(err)
	}
	pushed, err := c.Push(ctx, store, root, ref)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pushed by digest:", pushed.Digest == root.Digest && pushed.Tag == "")

	desc, err := c.Resolve(ctx, ref)
	if err != nil {
		log.Fatal(err)
	}
	manifest, err := c.FetchManifest(ctx, ref, desc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("manifest bytes:", int64(len(manifest)) == root.Size)

	var out bytes.Buffer // real callers spool to a temporary file
	if err := c.FetchBlob(ctx, pushed, layer, &out); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("layer: %q\n", out.String())
	// Output:
	// pushed by digest: true
	// manifest bytes: true
	// layer: "apiVersion: v1\nkind: ConfigMap\n"
}
