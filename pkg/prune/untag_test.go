package prune_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/prune"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

// tagDeletesManifest is a registry that, asked to delete a tag, deletes the
// manifest it points at (and so every tag on it), as some registries do.
type tagDeletesManifest struct{ *registry.Client }

func (r tagDeletesManifest) Delete(ctx context.Context, ref registry.Reference) error {
	if ref.Digest == "" {
		d, err := r.Resolve(ctx, ref)
		if err != nil {
			return err
		}
		ref.Tag, ref.Digest = "", d.Digest
	}
	return r.Client.Delete(ctx, ref)
}

// TestUntagRemovesManifest: on a registry whose tag deletes take the
// manifest with them, the first untag of a release tag whose manifest is
// needed stops the run, naming the tag and the manifest, before anything
// else is deleted; the release that needed it had its manifest removed by
// the registry, but nothing of what vouches for it went.
func TestUntagRemovesManifest(t *testing.T) {
	for _, shape := range []struct {
		name    string
		arrange func(t *testing.T, f *fixture)
		tag     string
	}{
		{"release shared with a kept tag", func(t *testing.T, f *fixture) { f.tag(t, "stable", "0.1.0") }, "0.1.0"},
		{"kept manifest tagged with an old version", func(t *testing.T, f *fixture) { f.retag(t, "0.0.9", f.digests["0.2.0"].Digest) }, "0.0.9"},
	} {
		t.Run(shape.name, func(t *testing.T) {
			f := publish(t, testregistry.New(t).Host(), "0.1.0", "0.2.0")
			shape.arrange(t, f)
			p := plan(t, f, prune.Options{Keep: 1})
			if p.Delete[0].Kind != prune.KindUntag || p.Delete[0].Tags[0] != shape.tag {
				t.Fatalf("plan starts with %+v, want the untag of %s", p.Delete[0], shape.tag)
			}
			d := p.Delete[0].Digest
			var on, others []string // the tags on d, and the rest
			for _, tag := range f.tags(t) {
				if f.at(t, tag) == d {
					on = append(on, tag)
				} else {
					others = append(others, tag)
				}
			}
			r := tagDeletesManifest{f.c}
			res, err := prune.Execute(context.Background(), r, f.repo, p)
			if !errors.Is(err, prune.ErrUntagRemoved) || !errors.Is(err, errdef.ErrUnsupported) ||
				!strings.Contains(err.Error(), shape.tag) || !strings.Contains(err.Error(), p.Delete[0].Digest.String()) {
				t.Fatalf("err = %v, want ErrUntagRemoved naming %s and %s", err, shape.tag, p.Delete[0].Digest)
			}
			if len(res.Deleted) != 0 || len(res.Remaining) != len(p.Delete) {
				t.Errorf("deleted %+v, %d remaining; want nothing deleted, all %d remaining", res.Deleted, len(res.Remaining), len(p.Delete))
			}
			// Only the registry's own damage: d and the tags on it.
			if !slices.Contains(on, shape.tag) {
				t.Fatalf("%s is not on %s: %v", shape.tag, d, on)
			}
			if got := f.tags(t); !slices.Equal(got, others) {
				t.Errorf("tags left %v, want %v (all but those on %s)", got, others, d)
			}
		})
	}
}
