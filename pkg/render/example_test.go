package render_test

import (
	"context"
	"fmt"
	"os"

	"github.com/addonpack/addonpack/pkg/render"
)

// Render the test CoreDNS add-on with a config object and its NodeLocal
// DNSCache component, then list the images it runs.
func Example() {
	config := []byte(`apiVersion: coredns.addons.example.com/v1alpha1
kind: CoreDNSConfig
metadata:
  name: coredns
spec:
  replicas: 2
  imageTag: v1.11.3
  clusterDomain: cluster.local
  clusterIP: 10.96.0.10
  nodeLocal:
    enabled: true
    ip: 169.254.20.10
`)
	out, err := render.Build(context.Background(), render.Input{
		Files:      os.DirFS("testdata/coredns"),
		Root:       ".",
		Config:     config,
		Components: []string{"components/nodelocal"}, // because spec.nodeLocal.enabled
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	images, err := render.Images(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, img := range images {
		fmt.Println(img)
	}
	// Output:
	// registry.k8s.io/coredns/coredns:v1.11.3
	// registry.k8s.io/dns/k8s-dns-node-cache:1.23.1
}

// A remote base is refused before kustomize would clone it.
func ExampleBuild_remote() {
	files := os.DirFS("testdata/remote")
	_, err := render.Build(context.Background(), render.Input{Files: files, Root: "."})
	fmt.Println(err)
	// Output:
	// kustomize build ./: kustomization.yaml: resources[0]: "github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v1.0.6": not a path inside the package (remote resources are not allowed)
}
