package commands

import (
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
)

func newConfig(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show an add-on's config type (its schema, a starter config, the versions it reads) and convert config objects",
	}
	cmd.AddCommand(newConfigSchema(g), newConfigDefaults(g), newConfigConvert(g), newConfigVersions(g), newConfigCheckUpgrade(g))
	return cmd
}

// newConfigSchema is `config schema`.
func newConfigSchema(g *globals) *cobra.Command {
	var (
		flavour string
		vf      verifyFlags
		vr      versionFlag
	)
	schemaCmd := &cobra.Command{
		Use:   "schema REF|LAYOUT|DIR",
		Short: "Print the schema of the add-on's config type",
		Long: `schema prints the schema of the config object's spec: as canonical JSON Schema, as OpenAPI
v3 YAML, or as a CustomResourceDefinition serving the config type (so an operator can
serve the same type). For a registry reference only the manifest and config blob are
fetched, not the content.

` + versionHelp,
		Example: `  addonpack config schema localhost:5000/addons/hello:0.1.0 --key release.pub
  addonpack config schema ./hello --format crd | kubectl apply -f -
  addonpack config schema localhost:5000/addons/hello --version 0.x --key release.pub --format openapi`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg, err := vr.pin(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			canonical, apiVersion, kind, err := g.configSchema(cmd, arg, &vf)
			if err != nil {
				return err
			}
			var out []byte
			switch flavour {
			case "jsonschema":
				out = append(canonical, '\n')
			case "openapi":
				out, err = schema.OpenAPI(canonical)
			case "crd":
				out, err = schema.CRD(canonical, apiVersion, kind)
			default:
				return usageError{fmt.Errorf("--format %q: want jsonschema, openapi or crd (this --format picks the schema, not an output encoding)", flavour)}
			}
			if err != nil {
				return err
			}
			return g.write("-", out)
		},
	}
	// Unlike every other command's --format (text or json), this one picks
	// the schema's flavour: each is printed in its own natural encoding.
	schemaCmd.Flags().StringVar(&flavour, "format", "jsonschema", "which schema to print — not an output encoding like other commands' --format: jsonschema, openapi (an OpenAPI v3 schema, as YAML) or crd (a CustomResourceDefinition, as YAML); jsonschema is JSON Schema, as JSON")
	vf.add(schemaCmd, true)
	vr.add(schemaCmd)
	return schemaCmd
}

// newConfigDefaults is `config defaults`.
func newConfigDefaults(g *globals) *cobra.Command {
	var (
		f  format
		vf verifyFlags
		vr versionFlag
	)
	defaultsCmd := &cobra.Command{
		Use:   "defaults REF|LAYOUT|DIR",
		Short: "Print a starter config: the packed defaults with the schema's defaults applied",
		Long:  "defaults prints the add-on's config object with its schema's defaults applied: a starter config\nto edit and pass to render --values.\n\n" + versionHelp,
		Example: `  addonpack config defaults localhost:5000/addons/hello:0.1.0 --key release.pub > my-hello.yaml
  addonpack render localhost:5000/addons/hello:0.1.0 --key release.pub --values my-hello.yaml
  addonpack config defaults localhost:5000/addons/hello --version 0.x --key release.pub --format json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg, err := vr.pin(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			p, err := g.open(cmd.Context(), arg, &vf, semver.Version{}, true)
			if err != nil {
				return err
			}
			defer p.Close()
			t, err := p.ConfigType()
			if err != nil {
				return err
			}
			if t == nil {
				return fmt.Errorf("%s: %w", p.Name, config.ErrNoConfig)
			}
			r, err := t.ResolveWith(nil, "", config.Options{ObjectOnly: true})
			if err != nil {
				return err
			}
			if f == formatJSON {
				var obj map[string]any
				if err := yaml.Unmarshal(r.Object, &obj); err != nil {
					return fmt.Errorf("%s: config object: %w", p.Name, err)
				}
				return f.print(g.streams.Out, obj, nil)
			}
			return g.write("-", r.Object)
		},
	}
	// text is the config object as YAML, ready to edit; json the same object.
	addFormat(defaultsCmd, &f, true)
	vf.add(defaultsCmd, true)
	vr.add(defaultsCmd)
	return defaultsCmd
}

// configSchema returns the canonical schema and config type of ARG, from the
// config blob for an artifact (no content download) or from a source dir.
func (g *globals) configSchema(cmd *cobra.Command, arg string, vf *verifyFlags) ([]byte, string, string, error) {
	c, err := g.consumerFor(cmd.Context(), vf, arg)
	if err != nil {
		return nil, "", "", err
	}
	schema, apiVersion, kind, err := c.Schema(cmd.Context(), arg)
	return schema, apiVersion, kind, usage(err)
}
