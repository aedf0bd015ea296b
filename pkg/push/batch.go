package push

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Item is one add-on of a batch: a source and where it goes.
type Item struct {
	Src string
	Ref registry.Reference
}

// Outcome is the result of one Item.
type Outcome struct {
	Src    string  `json:"source"`
	Result *Result `json:"result,omitempty"`
	Err    error   `json:"-"`
	Error  string  `json:"error,omitempty"`
}

// BatchOptions tune All.
type BatchOptions struct {
	// Options apply to every item.
	Options
	// Concurrency bounds the items in flight; 4 by default.
	Concurrency int
}

// All pushes (and, with o.Sign, signs and attests) many add-ons in one
// process: the key is unlocked once (while the first add-ons build), the
// registry client (connections, tokens) is shared, and at most
// o.Concurrency items are in flight. Outcomes are in the order of items;
// one failure does not stop the others.
func All(ctx context.Context, dst *registry.Client, items []Item, o BatchOptions) ([]Outcome, error) {
	opts, concurrency := o.Options, o.Concurrency
	if concurrency <= 0 {
		concurrency = 4
	}
	var unlock func() (*keys.Signer, error)
	if opts.Sign != nil && opts.Sign.Signer == nil && opts.Sign.Unlock != nil {
		// One unlock for the batch, on the other core while the first
		// add-ons build and upload; each waits for it before writing its
		// manifest (see Push).
		first := opts.Sign.Unlock
		unlock = sync.OnceValues(func() (*keys.Signer, error) { return first(ctx) })
		go unlock()
		so := *opts.Sign
		so.Unlock = func(context.Context) (*keys.Signer, error) { return unlock() }
		opts.Sign = &so
	}
	out := make([]Outcome, len(items))
	var g errgroup.Group
	g.SetLimit(concurrency)
	for i, it := range items {
		g.Go(func() error {
			res, err := Push(ctx, dst, it.Src, it.Ref, opts)
			out[i] = Outcome{Src: it.Src, Result: res}
			if err != nil {
				out[i].Err, out[i].Error = err, err.Error()
			}
			return nil // each add-on's outcome is its own
		})
	}
	g.Wait()
	if unlock != nil {
		if _, err := unlock(); err != nil {
			return nil, fmt.Errorf("unlocking the signing key: %w", err)
		}
	}
	return out, nil
}

// ItemsUnder returns the items of push --prefix: each source directory
// pushed to prefix/NAME:VERSION as its addon.yaml says ('+' written '_' in
// the tag). parse reads each reference by the caller's rules.
func ItemsUnder(prefix string, dirs []string, parse func(string) (registry.Reference, error)) ([]Item, error) {
	items := make([]Item, len(dirs))
	for i, dir := range dirs {
		file := filepath.Join(dir, spec.FileName)
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		a, err := spec.ParseAddon(data, file)
		if err != nil {
			return nil, err
		}
		ref, err := parse(strings.TrimSuffix(prefix, "/") + "/" + a.Metadata.Name + ":" + strings.ReplaceAll(a.Spec.Version, "+", "_"))
		if err != nil {
			return nil, err
		}
		items[i] = Item{Src: dir, Ref: ref}
	}
	return items, nil
}
