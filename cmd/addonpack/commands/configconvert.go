package commands

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/locate"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/upgrade"
)

// newConfigConvert is `config convert`: the kubeadm config migrate of
// addonpack.
func newConfigConvert(g *globals) *cobra.Command {
	var (
		values, out string
		f           format
		vf          verifyFlags
	)
	cmd := &cobra.Command{
		Use:   "convert REF|LAYOUT|DIR --values FILE [-o FILE]",
		Short: "Convert your config object to the add-on's current config version",
		Long: `convert reads your config object, of any config version the add-on reads, and writes it in
the add-on's current version, converted by the rules the add-on carries (addon.yaml
spec.config.conversion): to stdout, or to -o FILE. For a registry reference only the manifest
and config blob are fetched, not the content. The result holds what your object held,
converted; render merges it over the packed defaults and validates it.
--format json prints {object, conversion}: the object and, per step, the rules applied.`,
		Example: `  addonpack config convert localhost:5000/addons/hello:0.1.0 --key release.pub --values my-hello.yaml
  addonpack config convert ./hello --values my-hello.yaml -o my-hello-converted.yaml`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if values == "" {
				return usageError{fmt.Errorf("--values is required: the config object to convert")}
			}
			data, name, err := g.readValues(values)
			if err != nil {
				return err
			}
			a, _, err := g.configAddon(cmd, args[0], &vf)
			if err != nil {
				return err
			}
			c, err := config.ConvertObject(a, data, name)
			if err != nil {
				return err
			}
			if s := c.Result.Summary(); s != "" {
				fmt.Fprintf(g.streams.Err, "%s: %s\n", name, s)
			}
			w := g.streams.Out
			if out != "" && out != "-" {
				file, err := os.Create(out)
				if err != nil {
					return err
				}
				defer file.Close()
				w = file
			}
			err = f.print(w, struct {
				Object     map[string]any `json:"object"`
				Conversion []convert.Step `json:"conversion,omitempty"`
			}{c.Object, c.Result.Steps}, func(w io.Writer) error {
				_, err := w.Write(c.YAML)
				return err
			})
			if err != nil && out != "" && out != "-" {
				os.Remove(out)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&values, "values", "", "the config object to convert (YAML or JSON; - for stdin)")
	cmd.Flags().StringVarP(&out, "output", "o", "-", "where to write: - for stdout, or a file")
	addFormat(cmd, &f, false)
	vf.add(cmd, true)
	return cmd
}

// newConfigVersions is `config versions`.
func newConfigVersions(g *globals) *cobra.Command {
	var (
		f  format
		vf verifyFlags
	)
	cmd := &cobra.Command{
		Use:   "versions REF|LAYOUT|DIR",
		Short: "List the config versions the add-on reads, oldest first, the current one last",
		Long: `versions lists the versions of the add-on's config type that it reads: the older ones it
converts (addon.yaml spec.config.conversion), oldest first, then its current version. For a
registry reference only the manifest and config blob are fetched.`,
		Example: `  addonpack config versions localhost:5000/addons/hello:0.1.0 --key release.pub
  addonpack config versions ./hello --format json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, ref, err := g.configAddon(cmd, args[0], &vf)
			if err != nil {
				return err
			}
			c := a.Spec.Config
			if c == nil {
				return fmt.Errorf("%s: %w", ref, config.ErrNoConfig)
			}
			versions := a.ConfigAPIVersions()
			return f.print(g.streams.Out, struct {
				Reference string   `json:"reference"`
				Kind      string   `json:"kind"`
				Current   string   `json:"current"`
				Versions  []string `json:"versions"`
			}{ref, c.Kind, c.APIVersion, versions}, func(w io.Writer) error {
				for _, v := range versions {
					suffix := ""
					if v == c.APIVersion {
						suffix = " (current)"
					}
					if _, err := fmt.Fprintf(w, "%s, Kind=%s%s\n", v, c.Kind, suffix); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	addFormat(cmd, &f, true)
	vf.add(cmd, true)
	return cmd
}

// configAddon returns the addon.yaml of ARG and the name to show for it:
// from the config blob for an artifact (no content download), or from a
// source directory.
func (g *globals) configAddon(cmd *cobra.Command, arg string, vf *verifyFlags) (*spec.Addon, string, error) {
	a, err := g.locate(arg)
	if err != nil {
		return nil, "", err
	}
	if a.Kind == locate.SourceDir {
		p, err := deliver.OpenDir(a.Path, archive.DefaultLimits())
		if err != nil {
			return nil, "", err
		}
		return p.Addon, arg, nil
	}
	art, err := g.consumeArg(cmd.Context(), a, vf)
	if err != nil {
		return nil, "", err
	}
	loaded, err := art.Load(cmd.Context())
	if err != nil {
		return nil, "", err
	}
	return loaded.Addon, loaded.Ref, nil
}

// newConfigCheckUpgrade is `config check-upgrade`, the publisher's gate.
func newConfigCheckUpgrade(g *globals) *cobra.Command {
	var (
		f  format
		vf verifyFlags
	)
	cmd := &cobra.Command{
		Use:   "check-upgrade PREVIOUS_REF NEW_DIR",
		Short: "Check that users of the previous release can upgrade to NEW_DIR with their config",
		Long: `check-upgrade compares the config schema of the previous release (a reference, verified as
render verifies it, or a layout or directory) with the one of the source directory NEW_DIR:
every property removed, every type changed and every newly required property without a
schema default must be covered by a conversion rule of NEW_DIR (move, rename, delete or set
it, or fail with a message whose if names it) or, for a required property, by the packed
defaults. The previous config version must be one NEW_DIR reads, with the same schema. It
then converts the previous release's packed defaults and test vectors with NEW_DIR and
resolves them. It exits 3 and lists every problem when one is found; run it before a push.`,
		Example: `  addonpack config check-upgrade localhost:5000/addons/hello:0.1.0 ./hello --key release.pub`,
		Args:    exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			prev, err := g.open(cmd.Context(), args[0], &vf)
			if err != nil {
				return err
			}
			defer prev.Close()
			next, err := deliver.OpenDir(args[1], archive.DefaultLimits())
			if err != nil {
				return err
			}
			report, err := upgrade.CheckPackages(prev, next)
			if report == nil {
				return err
			}
			perr := f.print(g.streams.Out, report, func(w io.Writer) error {
				for _, c := range report.Changes {
					by := c.CoveredBy
					if by == "" {
						by = "NOT COVERED"
					}
					fmt.Fprintf(w, "%s: %s\n", c.Detail, by)
				}
				for _, c := range report.Checked {
					fmt.Fprintln(w, c)
				}
				if err == nil {
					fmt.Fprintf(w, "%s can upgrade to %s: %s → %s\n", report.Previous, args[1], report.PreviousConfigVersion, report.ConfigVersion)
				}
				return nil
			})
			if err != nil {
				return err
			}
			return perr
		},
	}
	addFormat(cmd, &f, true)
	vf.add(cmd, true)
	return cmd
}
