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
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/pull"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
)

// LoadOpener reads a locked add-on's config blob (Load) or its whole
// package (Open), both on the consumer path.
type LoadOpener interface {
	Loader
	Opener
}

// GitOps returns, for every add-on of steps, the objects Flux ("flux") or
// Argo CD ("argocd") need to consume it straight from the registry, pinned
// by its locked digest: Flux Kustomizations carry dependsOn edges (and
// wait), Argo CD Applications a sync wave per level. tmpl carries the
// shared settings (namespaces, interval, public key, plain HTTP; loopback
// registries are reached over plain HTTP anyway). A step with a values file
// carries them as the patch deliver.Package.GitOpsEdits makes (its package
// is fetched for that); one whose values cannot be carried that way is
// refused, never silently applied with its defaults.
func GitOps(ctx context.Context, l LoadOpener, steps []Step, tool string, tmpl deliver.GitOps) ([]byte, error) {
	var out bytes.Buffer
	for _, s := range steps {
		g := tmpl
		var loaded *artifact.Loaded
		if s.Values == "" {
			var err error
			if loaded, err = l.Load(ctx, s.Ref, s.Name); err != nil {
				return nil, err
			}
			g.Addon = loaded.Addon
		}
		if s.Values != "" || deliver.HasProfiles(loaded.Addon) {
			addon, edits, err := stepEdits(ctx, l, s)
			if err != nil {
				return nil, err
			}
			g.Addon, g.Edits = addon, edits
		}
		g.Ref, g.DependsOn, g.SyncWave = s.Ref, s.DependsOn, strconv.Itoa(s.Level)
		g.PlainHTTP = tmpl.PlainHTTP || registry.IsLoopback(s.Ref.Registry)
		var (
			b   []byte
			err error
		)
		switch tool {
		case "flux":
			b, err = deliver.Flux(g)
		case "argocd":
			b, err = deliver.ArgoCD(g)
		default:
			return nil, fmt.Errorf("%q: want flux or argocd", tool)
		}
		if err != nil {
			return nil, err
		}
		if out.Len() > 0 {
			out.WriteString("---\n")
		}
		out.Write(b)
	}
	return out.Bytes(), nil
}

// stepEdits opens a step's package and turns its values into the edits
// Flux and Argo CD append to its root kustomization.
func stepEdits(ctx context.Context, o Opener, s Step) (*spec.Addon, deliver.Edits, error) {
	p, err := o.Open(ctx, s.Ref, s.Name)
	if err != nil {
		return nil, deliver.Edits{}, err
	}
	defer p.Close()
	values, err := readValues(s.Values)
	if err != nil {
		return nil, deliver.Edits{}, err
	}
	e, err := p.GitOpsEdits(ctx, values, s.Values)
	if err != nil {
		return nil, deliver.Edits{}, fmt.Errorf("%s: %w", s.Name, err)
	}
	return p.Addon, e, nil
}

// OrderFile lists, in install order, the kustomization directory of each
// add-on that WriteKustomize wrote, one per line.
const OrderFile = "order.txt"

// WriteKustomize writes one directory per add-on into dir, numbered in
// install order ("01-cert-manager"), each with its values wired in as
// `render --format kustomize` does, and OrderFile: a Job or a script applies
// them stage by stage (`kubectl apply -k` each line). The whole directory
// is written atomically (see pull.WriteTree).
func WriteKustomize(ctx context.Context, o Opener, steps []Step, dir string, force bool) error {
	return pull.WriteTree(dir, force, func(tree string) error {
		var order []string
		for i, s := range steps {
			sub := fmt.Sprintf("%02d-%s", i+1, s.Name)
			root, err := writeStep(ctx, o, s, filepath.Join(tree, sub))
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(tree, root)
			if err != nil {
				return err
			}
			order = append(order, filepath.ToSlash(rel))
		}
		return writeFile(filepath.Join(tree, OrderFile), []byte(strings.Join(order, "\n")+"\n"))
	})
}

func writeStep(ctx context.Context, o Opener, s Step, dir string) (string, error) {
	p, err := o.Open(ctx, s.Ref, s.Name)
	if err != nil {
		return "", err
	}
	defer p.Close()
	values, err := readValues(s.Values)
	if err != nil {
		return "", err
	}
	return p.WriteKustomize(ctx, values, s.Values, dir, false)
}

// Puller pulls one locked add-on through the consumer path (by digest,
// verified again, bound to name) and unpacks it into dir.
type Puller interface {
	Pull(ctx context.Context, ref registry.Reference, name, dir string) error
}

// Pull unpacks every add-on of steps into its own subdirectory of dir
// (named as the add-on), atomically as a whole.
func Pull(ctx context.Context, p Puller, steps []Step, dir string, force bool) error {
	return pull.WriteTree(dir, force, func(tree string) error {
		for _, s := range steps {
			if err := p.Pull(ctx, s.Ref, s.Name, filepath.Join(tree, s.Name)); err != nil {
				return err
			}
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
