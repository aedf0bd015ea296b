package render

import (
	"context"
	"strings"
	"testing"
)

// TestImagesRelocate: Input.Images moves image references to another
// registry, pinned by digest, in Build and in the Overlay alike.
func TestImagesRelocate(t *testing.T) {
	pkg := files(
		"kustomization.yaml", "resources: [deploy.yaml]\nimages:\n- name: busybox\n  newTag: \"1.36\"\n",
		"deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: a, image: docker.io/hashicorp/http-echo:1.0.0}\n      - {name: b, image: busybox}\n",
	)
	digest := "sha256:" + strings.Repeat("ab", 32)
	in := Input{Files: pkg, Root: ".", Images: []Image{{Name: "docker.io/hashicorp/http-echo", NewName: "registry.internal/addons/x/hashicorp/http-echo", Digest: digest}}}
	out, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if !strings.Contains(got, "image: registry.internal/addons/x/hashicorp/http-echo@"+digest) || !strings.Contains(got, "image: busybox:1.36") {
		t.Fatalf("images not relocated, or the package's own images entry lost:\n%s", got)
	}
	overlay, err := Overlay(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	k := string(overlay["kustomization.yaml"])
	if !strings.Contains(k, "newName: registry.internal/addons/x/hashicorp/http-echo") || !strings.Contains(k, "newTag: \"1.36\"") {
		t.Fatalf("overlay kustomization:\n%s", k)
	}
}
