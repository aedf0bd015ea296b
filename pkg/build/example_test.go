package build_test

import (
	"context"
	"fmt"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/build"
)

// Build packs an add-on source directory into a content store with no
// network. The digest depends only on the files and the created/revision
// annotations, so it is the same on every machine.
func ExampleBuild() {
	store := memory.New()
	res, err := build.Build(context.Background(), "../../examples/hello", store, build.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Addon.Metadata.Name, res.Addon.Spec.Version)
	fmt.Println(res.Manifest.ArtifactType)
	fmt.Println(len(res.Layers), "layer:", res.Layers[0].MediaType)
	fmt.Println("images:", res.Addon.Spec.Images)
	// Output:
	// hello 0.1.0
	// application/vnd.addonpack.addon.v1
	// 1 layer: application/vnd.oci.image.layer.v1.tar+gzip
	// images: [docker.io/hashicorp/http-echo:1.0.0]
}
