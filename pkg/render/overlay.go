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
func Overlay(ctx context.Context, in Input) (map[string][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tree, _, written, err := prepare(in, path.Clean(in.Root))
	if err != nil {
		return nil, err
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
