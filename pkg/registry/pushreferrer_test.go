package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
		store, root := noteReferrer(t, note, a.root)
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

// TestPushReferrersConcurrently: on distribution 2.8 (no referrers API, so
// each referrer is added to the subject's referrers index tag, read and
// written back), referrers of one subject pushed at once through one
// Client are all listed: their changes to the index are merged, not
// written over one another (as push does with a signature and its
// provenance).
func TestPushReferrersConcurrently(t *testing.T) {
	ctx := context.Background()
	host := realregistry.Start(t, realregistry.Options{})
	c := newTestClient(t, Options{})
	a := buildArtifact(t, "subject", "layer")
	if _, err := c.Push(ctx, a.store, a.root, mustParse(t, host+"/r:v1")); err != nil {
		t.Fatal(err)
	}
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		store, root := noteReferrer(t, fmt.Sprint("note ", i), a.root)
		go func() {
			_, err := c.PushNew(ctx, store, root, mustParse(t, host+"/r"))
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := c.Referrers(ctx, mustParse(t, host+"/r"), a.root, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Fatalf("%d referrers listed, want %d", len(list), n)
	}
}

// noteReferrer is an artifact whose subject is subject and whose one layer
// is note, in a store of its own.
func noteReferrer(t *testing.T, note string, subject ocispec.Descriptor) (*memory.Store, ocispec.Descriptor) {
	t.Helper()
	store := memory.New()
	put := func(mt string, b []byte) ocispec.Descriptor {
		d := content.NewDescriptorFromBytes(mt, b)
		if err := store.Push(context.Background(), d, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		ArtifactType: "application/vnd.example.note", Config: put(ocispec.MediaTypeEmptyJSON, []byte("{}")),
		Layers: []ocispec.Descriptor{put("text/plain", []byte(note))}, Subject: &subject}
	raw, _ := json.Marshal(m)
	return store, put(ocispec.MediaTypeImageManifest, raw)
}
