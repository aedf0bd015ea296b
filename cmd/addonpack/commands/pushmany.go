package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	err = f.print(g.streams.Out, outcomes, func(w io.Writer) error {
		for _, o := range outcomes {
			if o.Err != nil {
				fmt.Fprintf(g.streams.Err, "FAILED %s: %v\n", o.Src, o.Err)
			} else {
				fmt.Fprintf(w, "%s\n", o.Result.Ref)
			}
		}
		return nil
	})
	var errs []error
	for _, o := range outcomes {
		errs = append(errs, o.Err)
	}
	return errors.Join(err, firstOf(errs, "add-ons"))
}
