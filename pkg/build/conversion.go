package build

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/schema"
)

// checkConversion applies specs/config.md section 9.6 to a config type with
// older versions (config.Load has compiled their schemas and the CEL
// expressions already): every test vector converts, every time, to its
// output, which resolves; so do the defaults of every older schema.
func (s *source) checkConversion(tree fs.FS, t *config.Type) error {
	conv := s.addon.Spec.Config.Conversion
	for i, tv := range conv.Tests {
		field := fmt.Sprintf("spec.config.conversion.tests[%d]", i)
		in, err := readObject(tree, tv.Input, s.displayPath, t, true)
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		want, err := readObject(tree, tv.Output, s.displayPath, t, false)
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		got, err := t.Chain.ConvertStable(in.APIVersion, in.Spec, s.displayPath(tv.Input))
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		if !reflect.DeepEqual(got.Spec, want.Spec) {
			gotJSON, _ := json.Marshal(got.Spec)
			wantJSON, _ := json.Marshal(want.Spec)
			return fmt.Errorf("%s: %s converts to spec %s, but %s says %s: %w",
				field, s.displayPath(tv.Input), gotJSON, s.displayPath(tv.Output), wantJSON, convert.ErrConvert)
		}
		if err := resolves(t, got, s.displayPath(tv.Output)); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	}
	for i, old := range t.Older {
		field := fmt.Sprintf("spec.config.conversion.versions[%d]", i)
		defaults, err := old.Schema.ApplyDefaults(map[string]any{})
		if err != nil {
			return fmt.Errorf("%s: %s: %w", field, old.SchemaFile, err)
		}
		name := old.SchemaFile + " (its defaults)"
		got, err := t.Chain.ConvertStable(old.APIVersion, defaults, name)
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		if err := resolves(t, got, name); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	}
	return nil
}

// readObject parses a test vector file: of any version the type reads when
// anyVersion, else of the current version.
func readObject(tree fs.FS, p string, display func(string) string, t *config.Type, anyVersion bool) (*schema.Object, error) {
	data, err := fs.ReadFile(tree, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display(p), err)
	}
	if anyVersion {
		return schema.ParseObjectAnyVersion(data, display(p), t.APIVersion, t.Kind)
	}
	return schema.ParseObject(data, display(p), t.APIVersion, t.Kind)
}

// resolves checks that a converted object resolves: merged over the packed
// defaults, defaulted and valid against the current schema.
func resolves(t *config.Type, r *convert.Result, name string) error {
	obj, err := json.Marshal(map[string]any{"apiVersion": r.APIVersion, "kind": t.Kind, "spec": r.Spec})
	if err != nil {
		return err
	}
	_, err = t.Resolve(obj, name+" (converted)")
	return err
}
