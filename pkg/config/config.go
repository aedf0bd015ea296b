// Package config resolves an add-on's component configuration: it loads the
// config type a package declares (schema, packed defaults, components),
// merges a user's config object over the packed defaults, applies the
// schema's defaults, validates the result listing every failing field, and
// produces the config object that rendering injects into the kustomization
// (specs/config.md).
package config

import (
	"fmt"
	"io/fs"
	"path"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/schema"
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
func Load(files fs.FS, a *spec.Addon, limits schema.Limits, display func(string) string) (*Type, error) {
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
	sch, err := schema.Compile(raw, display(c.Schema), limits)
	if err != nil {
		return nil, err
	}
	t := &Type{APIVersion: c.APIVersion, Kind: c.Kind, Name: a.Metadata.Name, Schema: sch,
		SchemaFile: display(c.Schema), Components: c.Components}
	if err := t.checkWhen(); err != nil {
		return nil, err
	}
	if c.Conversion != nil {
		for _, v := range c.Conversion.Versions {
			raw, err := fs.ReadFile(files, v.Schema)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", display(v.Schema), err)
			}
			old, err := schema.Compile(raw, display(v.Schema), limits)
			if err != nil {
				return nil, fmt.Errorf("spec.config.conversion: schema of %s: %w", v.APIVersion, err)
			}
			t.Older = append(t.Older, OlderVersion{ConfigVersion: v, Schema: old, SchemaFile: display(v.Schema)})
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
}

// Resolve merges the user's config object (YAML or JSON; nil for none) over
// the packed defaults, applies the schema's defaults and validates. name is
// the values file as errors show it.
func (t *Type) Resolve(values []byte, name string) (*Resolved, error) {
	effective := deepCopy(t.Defaults)
	source := t.DefaultsFile
	if values != nil {
		obj, err := schema.ParseObject(values, name, t.APIVersion, t.Kind)
		if err != nil {
			return nil, err
		}
		effective = Merge(effective, obj.Spec)
		source = name
	}
	if effective == nil {
		effective = map[string]any{}
	}
	effective, err := t.Schema.ApplyDefaults(effective)
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
	r := &Resolved{Spec: effective, Object: object}
	for i, comp := range t.Components {
		on, err := BoolField(effective, comp.When)
		if err != nil {
			return nil, &spec.FieldError{File: spec.FileName, Field: fmt.Sprintf("spec.config.components[%d].when", i),
				Msg: fmt.Sprintf("%q in %s: %v", comp.When, source, err)}
		}
		if on {
			r.Components = append(r.Components, path.Clean(comp.Path))
		}
	}
	return r, nil
}
