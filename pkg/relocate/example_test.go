package relocate_test

import (
	"context"
	"fmt"
	"os"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Copy an add-on with its signatures to an internal registry, verified at
// both ends with the release key.
func ExampleCopy() {
	ctx := context.Background()
	c, _ := registry.New(registry.Options{})
	policy, err := verify.PolicyFromKeys(ctx, []string{"release.pub"}, verify.KeyOptions{})
	if err != nil {
		fmt.Println("no key")
		return
	}
	src, _ := registry.ParseReference("ghcr.io/example/addons/hello:0.1.0")
	dst, _ := registry.ParseReference("registry.internal/addons/hello")
	res, err := relocate.Copy(ctx, c, src, dst, relocate.Options{Policy: policy, Images: true})
	if err == nil {
		fmt.Println(res.Destination)
	}
	// Output: no key
}

// A relocation record rewrites images through kustomize's images
// transformer: new name, digest pinned.
func ExampleRecord_Rewrite() {
	rec := &relocate.Record{Images: []relocate.ImageMapping{{
		Name:    "docker.io/hashicorp/http-echo",
		Source:  "docker.io/hashicorp/http-echo:1.0.0",
		NewName: "registry.internal/addons/hello/hashicorp/http-echo",
		Digest:  "sha256:0000000000000000000000000000000000000000000000000000000000000001",
	}}}
	out, err := rec.Rewrite(context.Background(), []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: hello
spec:
  template:
    spec:
      containers:
      - name: echo
        image: docker.io/hashicorp/http-echo:1.0.0
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(out)
	// Output:
	// apiVersion: apps/v1
	// kind: Deployment
	// metadata:
	//   name: hello
	// spec:
	//   template:
	//     spec:
	//       containers:
	//       - image: registry.internal/addons/hello/hashicorp/http-echo@sha256:0000000000000000000000000000000000000000000000000000000000000001
	//         name: echo
}
