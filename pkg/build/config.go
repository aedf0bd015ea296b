package build

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// configCheck is the outcome of checking the component config at build time.
type configCheck struct {
	schemaJSON []byte   // canonical schema, packed as its own layer
	object     []byte   // the defaults object (YAML) the build-time render uses
	components []string // components enabled by the defaults, relative to the kustomize root
}

// checkConfig compiles the schema and validates the defaults. It returns nil
// when addon.yaml declares no config.
func (s *source) checkConfig(limits schema.Limits) (*configCheck, error) {
	c := s.addon.Spec.Config
	if c == nil {
		return nil, nil
	}
	raw, err := s.read(c.Schema)
	if err != nil {
		return nil, err
	}
	sch, err := schema.Compile(raw, s.displayPath(c.Schema), limits)
	if err != nil {
		return nil, err
	}
	var values any = map[string]any{}
	defaultsFile := s.displayPath(c.Defaults)
	if c.Defaults != "" {
		data, err := s.read(c.Defaults)
		if err != nil {
			return nil, err
		}
		obj, err := schema.ParseObject(data, defaultsFile, c.APIVersion, c.Kind)
		if err != nil {
			return nil, err
		}
		values = obj.Spec
	} else {
		defaultsFile = s.displayPath(c.Schema) + " (its defaults)"
	}
	values = sch.ApplyDefaults(values)
	if err := sch.Validate(values); err != nil {
		return nil, fmt.Errorf("%s: does not validate against %s:\n%w", defaultsFile, s.displayPath(c.Schema), err)
	}
	object, err := yaml.Marshal(map[string]any{
		"apiVersion": c.APIVersion,
		"kind":       c.Kind,
		"metadata":   map[string]any{"name": s.addon.Metadata.Name},
		"spec":       values,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", defaultsFile, err)
	}
	cc := &configCheck{schemaJSON: sch.JSON(), object: object}
	for i, comp := range c.Components {
		on, err := boolField(values, comp.When)
		if err != nil {
			return nil, &spec.FieldError{File: s.displayPath(spec.FileName), Field: fmt.Sprintf("spec.config.components[%d].when", i),
				Msg: fmt.Sprintf("%q in %s: %v", comp.When, defaultsFile, err)}
		}
		if on {
			cc.components = append(cc.components, relTo(s.addon.KustomizeRoot(), comp.Path))
		}
	}
	return cc, nil
}

// boolField looks up a dotted field under spec; absent means false.
func boolField(v any, dotted string) (bool, error) {
	for _, key := range strings.Split(dotted, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false, nil
		}
		if v, ok = m[key]; !ok {
			return false, nil
		}
	}
	switch b := v.(type) {
	case bool:
		return b, nil
	case nil:
		return false, nil
	default:
		raw, _ := json.Marshal(b)
		return false, fmt.Errorf("is %s, not a boolean", raw)
	}
}

// relTo expresses package path p relative to package directory root.
func relTo(root, p string) string {
	rel, err := filepath.Rel(filepath.FromSlash(root), filepath.FromSlash(p))
	if err != nil {
		return p
	}
	return path.Clean(filepath.ToSlash(rel))
}
