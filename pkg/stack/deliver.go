package stack

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
)

// Deliverer makes the Flux or Argo CD objects of one add-on on the
// consumer path (consume.Consumer.GitOps): verified, bound to name, pinned by
// digest, carrying values as a patch where given or needed; it returns the
// verified artifact too, for the binding to the lock.
type Deliverer interface {
	GitOps(ctx context.Context, ref registry.Reference, name string, values []byte, valuesName, tool string, tmpl deliver.GitOps) ([]byte, *artifact.Loaded, error)
}

// GitOps returns, for every add-on of steps, the objects Flux ("flux") or
// Argo CD ("argocd") need to consume it straight from the registry, pinned
// by its locked digest: Flux Kustomizations carry dependsOn edges (and
// wait), Argo CD Applications a sync wave per level. tmpl carries the
// shared settings. A step with a values file carries them as a patch; one
// whose values cannot be carried that way is refused, never silently
// applied with its defaults.
func GitOps(ctx context.Context, d Deliverer, steps []Step, tool string, tmpl deliver.GitOps) ([]byte, error) {
	if err := deliver.CheckTool(tool); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	bind := newBinding(steps)
	for _, s := range steps {
		values, err := readValues(s.Values)
		if err != nil {
			return nil, err
		}
		g := tmpl
		g.DependsOn, g.SyncWave = s.DependsOn, strconv.Itoa(s.Level)
		b, loaded, err := d.GitOps(ctx, s.Ref, s.Name, values, s.Values, tool, g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		if err := bind.bind(s, loaded.Addon); err != nil {
			return nil, err
		}
		if out.Len() > 0 {
			out.WriteString("---\n")
		}
		out.Write(b)
	}
	if err := bind.done(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// OrderFile lists, in install order, the kustomization directory of each
// add-on that WriteKustomize wrote, one per line.
const OrderFile = "order.txt"

// WriteKustomize writes one directory per add-on into dir, numbered in
// install order ("01-cert-manager"), each with its values wired in as
// `render --format kustomize` does, and OrderFile: a Job or a script applies
// them stage by stage (`kubectl apply -k` each line). The whole directory
// is written atomically (see atomicfile.WriteDir), and only when every add-on
// is bound to its lock entry (binding).
func WriteKustomize(ctx context.Context, o Opener, steps []Step, dir string, force bool) error {
	bind := newBinding(steps)
	return atomicfile.WriteDir(dir, force, func(tree string) error {
		var order []string
		for i, s := range steps {
			sub := fmt.Sprintf("%02d-%s", i+1, s.Name)
			root, err := writeStep(ctx, o, s, filepath.Join(tree, sub), bind)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(tree, root)
			if err != nil {
				return err
			}
			order = append(order, filepath.ToSlash(rel))
		}
		if err := bind.done(); err != nil {
			return err
		}
		return writeFile(filepath.Join(tree, OrderFile), []byte(strings.Join(order, "\n")+"\n"))
	})
}

func writeStep(ctx context.Context, o Opener, s Step, dir string, bind *binding) (string, error) {
	p, err := o.Open(ctx, s.Ref, s.Name)
	if err != nil {
		return "", err
	}
	defer p.Close()
	if err := bind.bind(s, p.Addon); err != nil {
		return "", err
	}
	values, err := readValues(s.Values)
	if err != nil {
		return "", err
	}
	return p.WriteKustomize(ctx, values, s.Values, dir, false)
}

// Puller pulls one locked add-on through the consumer path (by digest,
// verified again, bound to name) and unpacks it into dir. It returns what
// the verified config blob says, which Pull binds to the lock entry.
type Puller interface {
	Pull(ctx context.Context, ref registry.Reference, name, dir string) (*artifact.Loaded, error)
}

// Pull unpacks every add-on of steps into its own subdirectory of dir
// (named as the add-on), atomically as a whole: the tree is renamed into
// place only when every add-on is bound to its lock entry (binding).
func Pull(ctx context.Context, p Puller, steps []Step, dir string, force bool) error {
	bind := newBinding(steps)
	return atomicfile.WriteDir(dir, force, func(tree string) error {
		for _, s := range steps {
			l, err := p.Pull(ctx, s.Ref, s.Name, filepath.Join(tree, s.Name))
			if err != nil {
				return err
			}
			if err := bind.bind(s, l.Addon); err != nil {
				return err
			}
		}
		if err := bind.done(); err != nil {
			return err
		}
		return writeFile(filepath.Join(tree, OrderFile), []byte(orderLines(steps)))
	})
}

func orderLines(steps []Step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Name + "\n")
	}
	return b.String()
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
