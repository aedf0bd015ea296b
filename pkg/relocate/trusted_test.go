package relocate

import (
	"context"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/registry"
)

// TestTrusted: an unsigned record may only move images the verified add-on
// declares: a pinned image only with its own digest; a tag-only image to
// where copy --images puts it beside the add-on, by a valid digest, and
// elsewhere only with the opt-in; a regexp-like name or a wrong digest is
// dropped, and names are quoted before kustomize sees them.
func TestTrusted(t *testing.T) {
	good := digest.Digest("sha256:" + strings.Repeat("a", 64))
	evil := digest.Digest("sha256:" + strings.Repeat("e", 64))
	home, _ := registry.ParseReference("reg/x")
	declared := []string{
		"docker.io/hashicorp/http-echo@" + good.String(),
		"registry.k8s.io/pause:3.10",
		"quay.io/org/tool:1",
	}
	rec := &Record{Images: []ImageMapping{
		{Name: "docker.io/hashicorp/http-echo", NewName: "reg/x/hashicorp/http-echo", Digest: good},
		{Name: ".*", NewName: "reg/x/evil", Digest: evil},
		{Name: "docker.io/hashicorp/http-echo", NewName: "reg/x/evil", Digest: evil},
		{Name: "registry.k8s.io/pause", NewName: "reg/x/pause", Digest: evil},
		{Name: "quay.io/org/tool", NewName: "elsewhere.example/tool", Digest: evil},
		{Name: "quay.io/org/tool", NewName: "reg/x/org/tool", Digest: "sha256:short"},
	}}
	kept, dropped := rec.Trusted(declared, home, false)
	if len(kept.Images) != 2 || kept.Images[0].Digest != good || kept.Images[1].NewName != "reg/x/pause" || len(dropped) != 4 {
		t.Fatalf("kept %+v dropped %v", kept.Images, dropped)
	}
	withTags, _ := rec.Trusted(declared, home, true)
	if len(withTags.Images) != 3 || withTags.Images[2].NewName != "elsewhere.example/tool" {
		t.Fatalf("tag-only opt-in: %+v", withTags.Images)
	}
	// Quoted names match only themselves.
	quoted := (&Record{Images: []ImageMapping{{Name: "registry.k8s.io/paus.", NewName: "reg/x/p", Digest: good}}}).KustomizeImages()
	if quoted[0].Name != `registry\.k8s\.io/paus\.` {
		t.Fatalf("name not quoted: %q", quoted[0].Name)
	}
	out, err := (&Record{Images: []ImageMapping{{Name: "registry.k8s.io/paus.", NewName: "reg/x/p", Digest: good}}}).Rewrite(context.Background(),
		[]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: registry.k8s.io/pause:3.10}\n"))
	if err != nil || !strings.Contains(string(out), "image: registry.k8s.io/pause:3.10") {
		t.Fatalf("a regexp-like name rewrote another image: %s %v", out, err)
	}
}
