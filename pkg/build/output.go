package build

import (
	"context"
	"strings"

	"github.com/addonpack/addonpack/pkg/layout"
)

// Output says where Package writes the artifact. Both may be empty: then the
// build only validates and reports the digest.
type Output struct {
	// LayoutDir is an OCI image layout directory (created or added to).
	LayoutDir string
	// Tarball is an OCI image layout tarball, written atomically.
	Tarball string
	// Tag names the manifest in the layout; the add-on version by default.
	Tag string
}

// Package builds dir and writes the artifact to out.
func Package(ctx context.Context, dir string, out Output, opts Options) (*Result, error) {
	store, err := NewSpool("")
	if err != nil {
		return nil, err
	}
	defer store.Close()
	res, err := Build(ctx, dir, store, opts)
	if err != nil {
		return nil, err
	}
	tag := out.Tag
	if tag == "" {
		// "+" is not allowed in OCI tags; Helm uses "_" the same way.
		tag = strings.ReplaceAll(res.Addon.Spec.Version, "+", "_")
	}
	if out.LayoutDir != "" {
		if err := layout.WriteDir(ctx, store, res.Manifest, out.LayoutDir, tag); err != nil {
			return nil, err
		}
	}
	if out.Tarball != "" {
		if err := layout.WriteTarball(ctx, store, res.Manifest, out.Tarball, tag); err != nil {
			return nil, err
		}
	}
	return res, nil
}
