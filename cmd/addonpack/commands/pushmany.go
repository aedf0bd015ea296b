package commands

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/addonpack/addonpack/pkg/push"
)

// pushMany pushes every dir to prefix/<name>:<version> in one process.
func (g *globals) pushMany(ctx context.Context, prefix string, dirs []string, sf *signFlags, builderID string, lf *limitFlags, f format) error {
	items, err := push.ItemsUnder(prefix, dirs, g.reference)
	if err != nil {
		return err
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
