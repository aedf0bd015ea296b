package config

import (
	"fmt"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Converted is a user's config object converted to the current version.
type Converted struct {
	// Object is {apiVersion, kind, metadata (the user's, if any), spec}.
	Object map[string]any
	// YAML is Object as YAML.
	YAML []byte
	// Result says what was done; its Steps are empty when the object was
	// of the current version already.
	Result *convert.Result
}

// ConvertObject converts values (a config object of any version add-on a
// reads, named name in errors) to the current version. It needs addon.yaml
// only — the rules travel in the artifact's config blob — so a registry
// reference is converted without its content. The result is not resolved:
// it holds only what the user wrote, converted; resolving (Type.Resolve,
// `addonpack render`) merges it over the packed defaults and validates it.
func ConvertObject(a *spec.Addon, values []byte, name string) (*Converted, error) {
	c := a.Spec.Config
	if c == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrNoConfig)
	}
	chain, err := convert.New(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.FileName, err)
	}
	obj, res, err := convertValues(chain, c.APIVersion, c.Kind, values, name)
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &convert.Result{APIVersion: obj.APIVersion, Spec: obj.Spec}
	}
	out := map[string]any{"apiVersion": res.APIVersion, "kind": c.Kind, "spec": res.Spec}
	if obj.Metadata != nil {
		out["metadata"] = obj.Metadata
	}
	y, err := yaml.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &Converted{Object: out, YAML: y, Result: res}, nil
}

// VersionList is what `addonpack config versions` prints: the config
// versions an add-on reads, oldest first, the current one last.
type VersionList struct {
	Reference string   `json:"reference"`
	Kind      string   `json:"kind"`
	Current   string   `json:"current"`
	Versions  []string `json:"versions"`
}

// WriteText writes one version a line, "APIVERSION, Kind=KIND", the current
// one marked " (current)".
func (l VersionList) WriteText(w io.Writer) error {
	for _, v := range l.Versions {
		suffix := ""
		if v == l.Current {
			suffix = " (current)"
		}
		if _, err := fmt.Fprintf(w, "%s, Kind=%s%s\n", v, l.Kind, suffix); err != nil {
			return err
		}
	}
	return nil
}
