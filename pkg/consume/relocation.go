package consume

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
)

// relocate applies to p the relocation record that 'copy --images' stored
// beside the verified artifact in ref's registry (specs/relocation.md):
// each relocated image becomes NEWNAME@DIGEST. The record is unsigned, so
// only what relocate.Record.Trusted keeps is applied — an image the signed
// add-on pins, with its digest; a tag-only one moved beside the add-on, as
// copy --images does (elsewhere only with TrustRelocatedTags) — and the
// others are named in a warning. Without a record, or offline, p is
// unchanged.
func (c *Consumer) relocate(ctx context.Context, ref registry.Reference, p *deliver.Package) error {
	if p.Loaded == nil || c.Offline || c.Client == nil {
		return nil
	}
	rec, err := relocate.LoadRecord(ctx, c.Client, ref, p.Loaded.Descriptor)
	if err != nil || rec == nil {
		return err
	}
	kept, dropped := rec.Trusted(p.Addon.Spec.Images, ref, c.TrustRelocatedTags)
	for _, name := range dropped {
		c.warnf("ignoring the relocation of %s: it is not an image the signed add-on pins by that digest, nor a tag-only image moved beside %s (--trust-relocated-tags applies tag-only relocations elsewhere)", name, ref.Repo())
	}
	if len(kept.Images) == 0 {
		return nil
	}
	if c.Warnings != nil {
		fmt.Fprintf(c.Warnings, "%d image(s) relocated beside %s (addonpack copy --images)\n", len(kept.Images), ref.Repo())
	}
	p.Images = kept.KustomizeImages()
	return nil
}
