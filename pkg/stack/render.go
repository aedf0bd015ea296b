package stack

import (
	"bytes"
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
)

// Opener opens one locked add-on through the consumer path: fetched by its
// digest, verified again under its own repository's policy scope, bound to
// the name the lock gives it. The caller closes the package.
type Opener interface {
	Open(ctx context.Context, ref registry.Reference, name string) (*deliver.Package, error)
}

// Render renders every add-on of steps in order, each with its own values,
// into one YAML stream: dependencies before dependents, each add-on's
// objects under a comment naming it. Each add-on is bound to its lock
// entry as it is opened (binding); nothing is returned unless all are.
func Render(ctx context.Context, o Opener, steps []Step) ([]byte, error) {
	var out bytes.Buffer
	err := Each(ctx, o, steps, func(s Step, p *deliver.Package, values []byte) error {
		b, err := p.Render(ctx, values, s.Values)
		if err != nil {
			return err
		}
		if out.Len() > 0 {
			out.WriteString("---\n")
		}
		fmt.Fprintf(&out, "# %s %s (%s)\n", s.Name, s.Version, s.Ref)
		out.Write(b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Each opens every add-on of steps in install order, binds it to its lock
// entry, reads the values the stack file gives it and hands both to fn
// (which renders, or checks, it); the package is closed when fn returns.
// The first error stops the walk; the bindings of the whole stack are
// checked once every step has been seen.
func Each(ctx context.Context, o Opener, steps []Step, fn func(s Step, p *deliver.Package, values []byte) error) error {
	bind := newBinding(steps)
	for _, s := range steps {
		if err := eachStep(ctx, o, s, bind, fn); err != nil {
			return err
		}
	}
	return bind.done()
}

func eachStep(ctx context.Context, o Opener, s Step, bind *binding, fn func(Step, *deliver.Package, []byte) error) error {
	p, err := o.Open(ctx, s.Ref, s.Name)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := bind.bind(s, p.Addon); err != nil {
		return err
	}
	values, err := readValues(s.Values)
	if err != nil {
		return err
	}
	return fn(s, p, values)
}

// readValues reads a stack's values file ("" : none, the defaults), bounded
// as every user's config object is.
func readValues(path string) ([]byte, error) {
	if path == "-" { // a file named "-" beside the stack file, never stdin
		path = "./-"
	}
	b, _, err := config.ReadValues(path, nil)
	return b, err
}
