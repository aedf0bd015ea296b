package render

import (
	"context"
	"path"
)

// Overlay returns the files Build adds to or changes in the package to wire
// in Input.Config and Input.Components — the config object file and the
// edited root kustomization — keyed by slash path relative to the package
// root, after the same checks Build makes. Written over a copy of the
// package, they give a directory that `kubectl apply -k`, Flux or Argo CD
// build exactly as Build does. Kustomize itself is not run.
//
// The directory holds every kustomization of the package, and any of them
// may be built from it, so every one is checked as Build checks the root's
// (remote resources, paths leaving the package, helm, plugins; a
// *RefusedError), not only those the root reaches: the directory builds
// standalone, reaching nothing outside it.
func Overlay(ctx context.Context, in Input) (map[string][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tree, c, written, err := prepare(in, path.Clean(in.Root))
	if err != nil {
		return nil, err
	}
	for _, dir := range tree.dirs() {
		if len(tree.kustomizationFiles(dir)) > 0 {
			if err := c.checkDir(dir); err != nil {
				return nil, err
			}
		}
	}
	out := make(map[string][]byte, len(written))
	for _, p := range written {
		data, err := tree.read(p)
		if err != nil {
			return nil, err
		}
		out[p] = data
	}
	return out, nil
}
