package consume

import (
	"context"
	"os"
	"path/filepath"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/deliver"
)

// OpenDir opens an add-on source directory as a package to configure and
// render, with the files it would pack. A source directory is the user's
// own: it is not verified.
func OpenDir(dir string, limits archive.Limits) (*deliver.Package, error) {
	a, tree, err := build.LoadTree(dir, limits)
	if err != nil {
		return nil, err
	}
	return deliver.New(dir, tree, a, nil, nil), nil
}

// Fetch resolves src once, runs opts.Verify, and unpacks the artifact into
// a private temporary directory that the package's Close removes.
func Fetch(ctx context.Context, src artifact.Source, opts PullOptions) (*deliver.Package, error) {
	tmp, err := os.MkdirTemp("", "addonpack-*")
	if err != nil {
		return nil, err
	}
	res, err := Pull(ctx, src, filepath.Join(tmp, "tree"), opts)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return deliver.New(res.Ref, os.DirFS(res.Dir), res.Addon, res.Loaded, func() error { return os.RemoveAll(tmp) }), nil
}
