package render

import (
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// TestOverlayBuildsLikeBuild writes the overlay over a copy of the package
// and checks that building the result with no config gives Build's output.
func TestOverlayBuildsLikeBuild(t *testing.T) {
	pkg := os.DirFS("testdata/coredns")
	config, err := os.ReadFile("testdata/config/coredns-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Files: pkg, Root: ".", Config: config, Components: []string{"components/nodelocal"}}
	want, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := Overlay(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(overlay) != 2 || overlay["kustomization.yaml"] == nil {
		t.Fatalf("overlay files: %v", overlayKeys(overlay))
	}
	merged := mapFSOf(t, "testdata/coredns", "")
	for p, data := range overlay {
		merged[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	got, err := Build(context.Background(), Input{Files: merged, Root: "."})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("the overlaid package renders differently:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(string(overlay["kustomization.yaml"]), "components/nodelocal") {
		t.Fatalf("component not added:\n%s", overlay["kustomization.yaml"])
	}
}

func overlayKeys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
