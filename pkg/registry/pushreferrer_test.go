package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/realregistry"
)

// TestPushReferrersWithoutDeletes: on distribution 2.8 with deletes
// disabled (its default), a second referrer of one subject is stored and
// listed, though the referrers index it replaces cannot be deleted.
func TestPushReferrersWithoutDeletes(t *testing.T) {
	ctx := context.Background()
	host := realregistry.Start(t, realregistry.Options{NoDelete: true})
	c := newTestClient(t, Options{})
	a := buildArtifact(t, "subject", "layer")
	ref := mustParse(t, host+"/r:v1")
	if _, err := c.Push(ctx, a.store, a.root, ref); err != nil {
		t.Fatal(err)
	}
	for _, note := range []string{"one", "two"} {
		store := memory.New()
		put := func(mt string, b []byte) ocispec.Descriptor {
			d := content.NewDescriptorFromBytes(mt, b)
			if err := store.Push(ctx, d, bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
			return d
		}
		m := ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
			ArtifactType: "application/vnd.example.note", Config: put(ocispec.MediaTypeEmptyJSON, []byte("{}")),
			Layers: []ocispec.Descriptor{put("text/plain", []byte(note))}, Subject: &a.root}
		raw, _ := json.Marshal(m)
		root := put(ocispec.MediaTypeImageManifest, raw)
		if _, err := c.PushNew(ctx, store, root, mustParse(t, host+"/r")); err != nil {
			t.Fatalf("referrer %s: %v", note, err)
		}
	}
	list, _, err := c.Referrers(ctx, mustParse(t, host+"/r"), a.root, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d referrers listed, want 2: %v", len(list), list)
	}
}
