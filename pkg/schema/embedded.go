package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CompileEmbedded compiles one of addonpack's own JSON Schemas at name in
// fsys (specs.Schemas: the addon.yaml and policy schemas) for the packages
// that validate against them. They are self-contained: any external
// reference is refused (ErrExternalRef), as Compile refuses it in an
// add-on's schema. The schema's URL is the file's base name, which is what
// its errors' SchemaURL begins with.
func CompileEmbedded(fsys fs.FS, name string) (*jsonschema.Schema, error) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	url := path.Base(name)
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sch, err := c.Compile(url)
	var le *jsonschema.LoadURLError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("%s: %w: %q", name, ErrExternalRef, le.URL)
	}
	return sch, err
}

// ValidateEmbedded validates the JSON document js against the embedded
// schema at name in fsys (CompileEmbedded), for a package that reads one of
// addonpack's own file formats (the mirror file) without linking the
// JSON Schema library itself.
func ValidateEmbedded(fsys fs.FS, name string, js []byte) error {
	sch, err := CompileEmbedded(fsys, name)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}
