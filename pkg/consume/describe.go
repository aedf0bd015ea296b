package consume

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Addon returns the addon.yaml of arg and the name to show for it: from
// the verified config blob of an artifact (no content download), or from a
// source directory.
func (c *Consumer) Addon(ctx context.Context, arg string) (*spec.Addon, string, error) {
	a, err := ParseArg(arg)
	if err != nil {
		return nil, "", err
	}
	if a.Kind == KindSourceDir {
		p, err := OpenDir(a.Path, c.Limits.Normalized())
		if err != nil {
			return nil, "", err
		}
		return p.Addon, arg, nil
	}
	loaded, err := c.load(ctx, a)
	if err != nil {
		return nil, "", err
	}
	return loaded.Addon, loaded.Ref, nil
}

// Schema returns the canonical component-config schema of arg and its
// config type (apiVersion, kind): from the verified config blob of an
// artifact (no content download), or compiled from a source directory.
func (c *Consumer) Schema(ctx context.Context, arg string) (schema []byte, apiVersion, kind string, err error) {
	a, err := ParseArg(arg)
	if err != nil {
		return nil, "", "", err
	}
	if a.Kind == KindSourceDir {
		p, err := OpenDir(a.Path, c.Limits.Normalized())
		if err != nil {
			return nil, "", "", err
		}
		t, err := p.ConfigType()
		if err != nil {
			return nil, "", "", err
		}
		if t == nil {
			return nil, "", "", fmt.Errorf("%s: %w", arg, config.ErrNoConfig)
		}
		return t.Schema.JSON(), t.APIVersion, t.Kind, nil
	}
	loaded, err := c.load(ctx, a)
	if err != nil {
		return nil, "", "", err
	}
	cfg := loaded.Addon.Spec.Config
	if cfg == nil || loaded.Schema == nil {
		return nil, "", "", fmt.Errorf("%s: %w", loaded.Ref, config.ErrNoConfig)
	}
	return loaded.Schema, cfg.APIVersion, cfg.Kind, nil
}

// load opens a (a reference or a layout) under the consumer's trust and
// loads its manifest and config blob.
func (c *Consumer) load(ctx context.Context, a Arg) (*artifact.Loaded, error) {
	art, err := Open(ctx, a, c.Options)
	if err != nil {
		return nil, err
	}
	return art.Load(ctx)
}
