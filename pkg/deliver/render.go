package deliver

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/render"
)

// Render resolves values (nil: the packed defaults) and builds the package:
// multi-document YAML, byte-identical for the same package and values.
func (p *Package) Render(ctx context.Context, values []byte, valuesName string) ([]byte, error) {
	r, err := p.RenderConverted(ctx, values, valuesName)
	if err != nil {
		return nil, err
	}
	return r.YAML, nil
}

// Rendering is a rendered package and what converting the user's config
// object to the package's config version took.
type Rendering struct {
	YAML []byte
	// Conversion lists the steps taken, each with the rules it applied
	// (specs/config.md section 9.5); empty when the object was of the
	// current version, or none was given.
	Conversion []convert.Step
}

// RenderConverted is Render, also reporting the conversion of values, for
// outputs that list it (diff --format json).
func (p *Package) RenderConverted(ctx context.Context, values []byte, valuesName string) (Rendering, error) {
	in, _, resolved, err := p.resolve(ctx, values, valuesName)
	if err != nil {
		return Rendering{}, err
	}
	out, err := render.Build(ctx, in)
	if err != nil {
		return Rendering{}, fmt.Errorf("%s: %w", p.Name, err)
	}
	r := Rendering{YAML: out}
	if resolved != nil && resolved.Conversion != nil {
		r.Conversion = resolved.Conversion.Steps
	}
	return r, nil
}

// ToJSON turns rendered YAML into one indented JSON "v1 List", which
// `kubectl apply -f` accepts.
func ToJSON(rendered []byte) ([]byte, error) { return render.ToJSON(rendered) }

// RenderAs is Render in format: "yaml", the multi-document stream, or
// "json", one v1 List (ToJSON). Any other format is a command-line mistake
// (errdef.ErrUsage), reported after the package was opened.
func (p *Package) RenderAs(ctx context.Context, values []byte, valuesName, format string) ([]byte, error) {
	if format != "yaml" && format != "json" {
		return nil, errdef.Usagef("--format %q: want yaml, json or kustomize", format)
	}
	rendered, err := p.Render(ctx, values, valuesName)
	if err != nil || format == "yaml" {
		return rendered, err
	}
	return ToJSON(rendered)
}

// WriteKustomize writes the package tree with the resolved config wired into
// its kustomization to dir, atomically (see atomicfile.WriteDir). `kubectl apply
// -k DIR/<kustomize root>`, Flux and Argo CD build it exactly as Render does.
// It returns the kustomization directory inside dir.
func (p *Package) WriteKustomize(ctx context.Context, values []byte, valuesName, dir string, force bool) (string, error) {
	in, err := p.input(ctx, values, valuesName)
	if err != nil {
		return "", err
	}
	overlay, err := render.Overlay(ctx, in)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.Name, err)
	}
	err = atomicfile.WriteDir(dir, force, func(tree string) error {
		root, err := os.OpenRoot(tree)
		if err != nil {
			return err
		}
		defer root.Close()
		write := func(rel string, data []byte) error {
			if err := root.MkdirAll(path.Dir(rel), 0o755); err != nil {
				return err
			}
			return root.WriteFile(rel, data, 0o644)
		}
		err = fs.WalkDir(p.Files, ".", func(rel string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if _, replaced := overlay[rel]; replaced {
				return nil
			}
			data, err := fs.ReadFile(p.Files, rel)
			if err != nil {
				return err
			}
			return write(rel, data)
		})
		if err != nil {
			return err
		}
		for rel, data := range overlay {
			if err := write(rel, data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(in.Root)), nil
}
