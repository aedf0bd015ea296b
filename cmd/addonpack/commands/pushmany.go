package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/addonpack/addonpack/pkg/push"
	"github.com/addonpack/addonpack/pkg/spec"
)

// pushMany pushes every dir to prefix/<name>:<version> in one process.
func (g *globals) pushMany(ctx context.Context, prefix string, dirs []string, sf *signFlags, builderID string, lf *limitFlags, f format) error {
	items := make([]push.Item, len(dirs))
	for i, dir := range dirs {
		file := filepath.Join(dir, spec.FileName)
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		a, err := spec.ParseAddon(data, file)
		if err != nil {
			return err
		}
		ref, err := g.reference(strings.TrimSuffix(prefix, "/") + "/" + a.Metadata.Name + ":" + strings.ReplaceAll(a.Spec.Version, "+", "_"))
		if err != nil {
			return err
		}
		items[i] = push.Item{Src: dir, Ref: ref}
	}
	c, opts, err := g.pushOptions(ctx, sf, builderID, lf)
	if err != nil {
		return err
	}
	done := g.progress.Activity(fmt.Sprintf("Pushing %d add-ons", len(items)))
	outcomes, err := push.All(ctx, c, items, push.BatchOptions{Options: opts})
	done(err)
	if err != nil {
		return err
	}
	var first error
	failed := 0
	for _, o := range outcomes {
		if o.Err != nil {
			failed++
			if first == nil {
				first = o.Err
			}
		}
	}
	if f == formatJSON {
		enc := json.NewEncoder(g.streams.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(outcomes); err != nil {
			return err
		}
	} else {
		for _, o := range outcomes {
			if o.Err != nil {
				fmt.Fprintf(g.streams.Err, "FAILED %s: %v\n", o.Src, o.Err)
				continue
			}
			fmt.Fprintf(g.streams.Out, "%s\n", o.Result.Ref)
		}
	}
	if first != nil {
		return fmt.Errorf("%d of %d add-ons failed; the first: %w", failed, len(outcomes), first)
	}
	return nil
}
