// Package config resolves an add-on's component configuration: it loads the
// config type a package declares (schema, packed defaults, components),
// merges a user's config object over the packed defaults, applies the
// schema's defaults, validates the result listing every failing field, and
// produces the config object that rendering injects into the kustomization
// (specs/config.md).
package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/internal/tally"
	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
)

// ErrNoConfig is returned when values are given for an add-on that declares
// no config type.
var ErrNoConfig = errdef.New(errdef.ErrInvalid, "the add-on declares no config type")

// Type is a package's component-config type.
type Type struct {
	APIVersion, Kind string
	// Name is metadata.name of the injected object: the add-on name.
	Name       string
	Schema     *schema.Schema
	SchemaFile string
	// Defaults is the spec of the packed defaults object (nil without one).
	Defaults     any
	DefaultsFile string
	Components   []spec.Component
	// Older are the older versions the type still reads, oldest first
	// (spec.config.conversion.versions, addonpack.dev/v1alpha2).
	Older []OlderVersion
	// Chain converts objects of the older versions; nil without any.
	Chain *convert.Chain

	prof profiles
}

// OlderVersion is an older version of the config type, with its compiled
// schema and the step to the next version.
type OlderVersion struct {
	spec.ConfigVersion
	Schema     *schema.Schema
	SchemaFile string
}

// Load reads the config type declared by a (nil when it declares none) from
// the package files. display turns a package path into what errors show.
//
// ctx counts the schemas and the conversion chain compiled (pkg/tally).
func Load(ctx context.Context, files fs.FS, a *spec.Addon, limits schema.Limits, display func(string) string) (*Type, error) {
	c := a.Spec.Config
	if c == nil {
		return nil, nil
	}
	if display == nil {
		display = func(p string) string { return p }
	}
	raw, err := fs.ReadFile(files, c.Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display(c.Schema), err)
	}
	tally.Add(ctx, tally.SchemaCompile)
	sch, err := schema.Compile(raw, display(c.Schema), limits)
	if err != nil {
		return nil, err
	}
	t := &Type{APIVersion: c.APIVersion, Kind: c.Kind, Name: a.Metadata.Name, Schema: sch,
		SchemaFile: display(c.Schema), Components: c.Components}
	if err := t.loadProfiles(files, a, display); err != nil {
		return nil, err
	}
	if c.Conversion != nil {
		for _, v := range c.Conversion.Versions {
			raw, err := fs.ReadFile(files, v.Schema)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", display(v.Schema), err)
			}
			tally.Add(ctx, tally.SchemaCompile)
			old, err := schema.Compile(raw, display(v.Schema), limits)
			if err != nil {
				return nil, fmt.Errorf("spec.config.conversion: schema of %s: %w", v.APIVersion, err)
			}
			t.Older = append(t.Older, OlderVersion{ConfigVersion: v, Schema: old, SchemaFile: display(v.Schema)})
		}
		tally.Add(ctx, tally.ConversionChain)
		if t.Chain, err = convert.New(c); err != nil {
			return nil, fmt.Errorf("%s: %w", spec.FileName, err)
		}
	}
	if c.Defaults != "" {
		t.DefaultsFile = display(c.Defaults)
		data, err := fs.ReadFile(files, c.Defaults)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.DefaultsFile, err)
		}
		obj, err := schema.ParseObject(data, t.DefaultsFile, c.APIVersion, c.Kind)
		if err != nil {
			return nil, err
		}
		t.Defaults = obj.Spec
	}
	return t, nil
}

// Resolved is a validated configuration, ready to render.
type Resolved struct {
	// Spec is the effective spec: user values over packed defaults, schema defaults applied.
	Spec any
	// Object is the config object as YAML, for the kustomization.
	Object []byte
	// Components are the package paths of the components the config enables.
	Components []string
	// Conversion is what converting the user's object to the current
	// version did; nil when it was of the current version (or absent).
	Conversion *convert.Result
}

// Versions are the config versions the type reads, oldest first, the
// current one last.
func (t *Type) Versions() []string {
	if t.Chain == nil {
		return []string{t.APIVersion}
	}
	return t.Chain.Versions()
}

// Convert parses a config object of any version the type reads (YAML or
// JSON) and converts its spec to the current version (specs/config.md
// section 9.2). The Result is nil when the object was of the current
// version.
func (t *Type) Convert(values []byte, name string) (*schema.Object, *convert.Result, error) {
	return convertValues(t.Chain, t.APIVersion, t.Kind, values, name)
}

// convertValues parses values and converts it with chain (nil: the type
// reads its current version only, and an object of a newer one is refused
// as such).
func convertValues(chain *convert.Chain, apiVersion, kind string, values []byte, name string) (*schema.Object, *convert.Result, error) {
	obj, err := schema.ParseObjectAnyVersion(values, name, apiVersion, kind)
	if err != nil {
		return nil, nil, err
	}
	if chain == nil {
		if err := convert.NewerError(obj.APIVersion, apiVersion, name); err != nil {
			return nil, nil, err
		}
		// The first version's message for any other apiVersion.
		obj, err := schema.ParseObject(values, name, apiVersion, kind)
		return obj, nil, err
	}
	res, err := chain.Convert(obj.APIVersion, obj.Spec, name)
	if err != nil {
		return nil, nil, err
	}
	if len(res.Steps) == 0 {
		return obj, nil, nil
	}
	converted := *obj
	converted.APIVersion, converted.Spec = res.APIVersion, res.Spec
	return &converted, res, nil
}

// Options are what a resolution needs besides the user's object.
type Options struct {
	// KubeVersion is the target cluster's Kubernetes version, a core
	// (ParseKubeVersion); required when a component has a kubernetes range.
	KubeVersion semver.Version
	// ObjectOnly skips the components: for a caller that wants only the
	// resolved object (config defaults), no Kubernetes version is needed.
	ObjectOnly bool
}

// Resolve is ResolveWith with no options.
func (t *Type) Resolve(values []byte, name string) (*Resolved, error) {
	return t.ResolveWith(values, name, Options{})
}

// ResolveWith merges the user's config object (YAML or JSON; nil for none)
// over the packed defaults — and over the defaults overlays whose `when`
// holds for the user's values — applies the schema's defaults and
// validates. name is the values file as errors show it.
func (t *Type) ResolveWith(values []byte, name string, opts Options) (*Resolved, error) {
	effective := schema.DeepCopy(t.Defaults)
	source := t.DefaultsFile
	var user any
	var conversion *convert.Result
	if values != nil {
		obj, res, err := t.Convert(values, name)
		if err != nil {
			return nil, err
		}
		user = obj.Spec
		source, conversion = name, res
		if res != nil {
			source = fmt.Sprintf("%s (%s)", name, res.Summary())
		}
	}
	if len(t.prof.overlays) > 0 {
		// The overlays are chosen by the values as they would resolve
		// without them: an overlay never sets a field a when reads.
		probe := effective
		if values != nil {
			probe = Merge(probe, user)
		}
		probe, err := t.Schema.ApplyDefaults(orEmpty(probe))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.SchemaFile, err)
		}
		if effective, err = t.overlaid(probe); err != nil {
			return nil, err
		}
	}
	if values != nil {
		effective = Merge(effective, user)
	}
	effective, err := t.Schema.ApplyDefaults(orEmpty(effective))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.SchemaFile, err)
	}
	if source == "" {
		source = t.SchemaFile + " (its defaults)"
	}
	if err := t.Schema.Validate(effective); err != nil {
		return nil, fmt.Errorf("%s: does not validate against %s:\n%w", source, t.SchemaFile, err)
	}
	object, err := yaml.Marshal(map[string]any{
		"apiVersion": t.APIVersion,
		"kind":       t.Kind,
		"metadata":   map[string]any{"name": t.Name},
		"spec":       effective,
	})
	if err != nil {
		return nil, err
	}
	r := &Resolved{Spec: effective, Object: object, Conversion: conversion}
	if opts.ObjectOnly {
		return r, nil
	}
	for i, comp := range t.Components {
		on, err := t.enabled(i, effective, opts)
		if err != nil {
			if errors.Is(err, ErrKubeVersion) {
				return nil, err
			}
			return nil, &spec.FieldError{File: spec.FileName, Field: fmt.Sprintf("spec.config.components[%d].when", i),
				Msg: fmt.Sprintf("%q in %s: %v", comp.When, source, err)}
		}
		if on {
			r.Components = append(r.Components, path.Clean(comp.Path))
		}
	}
	return r, nil
}

// enabled evaluates component i: its when, if any, on the resolved spec,
// and its kubernetes range, if any, on opts.KubeVersion.
func (t *Type) enabled(i int, effective any, opts Options) (bool, error) {
	if i < len(t.prof.kube) && t.prof.kube[i] != nil {
		if opts.KubeVersion.IsZero() {
			return false, fmt.Errorf("%s: spec.config.components[%d] (%s) depends on the Kubernetes version (kubernetes: %q): give the target cluster's version (render --kube-version): %w",
				spec.FileName, i, t.Components[i].Path, t.Components[i].Kubernetes, ErrKubeVersion)
		}
		if !t.prof.kube[i].matches(opts.KubeVersion) {
			return false, nil
		}
	}
	if i >= len(t.prof.conds) || t.prof.conds[i].path == nil {
		return true, nil
	}
	return t.prof.conds[i].holds(effective)
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

// blobType is the add-on's config type as its config blob states it: the
// current schema compiled (counted), without conversion or profiles; nil
// when the add-on has no config.
func blobType(ctx context.Context, a *spec.Addon, schemaJSON []byte, limits schema.Limits) (*Type, error) {
	c := a.Spec.Config
	if c == nil {
		return nil, nil
	}
	tally.Add(ctx, tally.SchemaCompile)
	sch, err := schema.Compile(schemaJSON, c.Schema, limits)
	if err != nil {
		return nil, err
	}
	return &Type{APIVersion: c.APIVersion, Kind: c.Kind, Name: a.Metadata.Name, Schema: sch, SchemaFile: c.Schema, Components: c.Components}, nil
}

// FromBlob is the config type of an artifact as its config blob gives it:
// addon.yaml a, the canonical schema and the older versions' schemas
// (spec.ConversionBlob; nil without conversion). No package content is
// read: there are no packed defaults (Defaults is nil) and no profiles —
// enough to convert and check a user's object (upgrade plan) without
// downloading the content layer. Nil when a declares no config type.
func FromBlob(ctx context.Context, a *spec.Addon, schemaJSON []byte, conv *spec.ConversionBlob, limits schema.Limits) (*Type, error) {
	t, err := blobType(ctx, a, schemaJSON, limits)
	if t == nil || err != nil {
		return nil, err
	}
	c := a.Spec.Config
	if c.Conversion == nil {
		return t, nil
	}
	for _, v := range c.Conversion.Versions {
		var raw []byte
		if conv != nil {
			raw = conv.Schemas[v.APIVersion]
		}
		if raw == nil {
			return nil, fmt.Errorf("spec.config.conversion: %w: the config blob carries no schema of %s", errdef.ErrInvalid, v.APIVersion)
		}
		tally.Add(ctx, tally.SchemaCompile)
		old, err := schema.Compile(raw, v.Schema, limits)
		if err != nil {
			return nil, fmt.Errorf("spec.config.conversion: schema of %s: %w", v.APIVersion, err)
		}
		t.Older = append(t.Older, OlderVersion{ConfigVersion: v, Schema: old, SchemaFile: v.Schema})
	}
	tally.Add(ctx, tally.ConversionChain)
	if t.Chain, err = convert.New(c); err != nil {
		return nil, fmt.Errorf("%s: %w", spec.FileName, err)
	}
	return t, nil
}
