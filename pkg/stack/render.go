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
	bind := newBinding(steps)
	for _, s := range steps {
		b, err := renderStep(ctx, o, s, bind)
		if err != nil {
			return nil, err
		}
		if out.Len() > 0 {
			out.WriteString("---\n")
		}
		fmt.Fprintf(&out, "# %s %s (%s)\n", s.Name, s.Version, s.Ref)
		out.Write(b)
	}
	if err := bind.done(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func renderStep(ctx context.Context, o Opener, s Step, bind *binding) ([]byte, error) {
	p, err := o.Open(ctx, s.Ref, s.Name)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := bind.bind(s, p.Addon); err != nil {
		return nil, err
	}
	values, err := readValues(s.Values)
	if err != nil {
		return nil, err
	}
	return p.Render(ctx, values, s.Values)
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
