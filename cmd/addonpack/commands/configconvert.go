package commands

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/semver"
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
			data, name, err := config.ReadValues(values, g.streams.In)
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
			l := config.VersionList{Reference: ref, Kind: c.Kind, Current: c.APIVersion, Versions: a.ConfigAPIVersions()}
			return f.print(g.streams.Out, l, l.WriteText)
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
	c, err := g.consumerFor(cmd.Context(), vf, arg)
	if err != nil {
		return nil, "", err
	}
	a, name, err := c.Addon(cmd.Context(), arg)
	return a, name, usage(err)
}

// newConfigCheckUpgrade is `config check-upgrade`, the publisher's gate.
func newConfigCheckUpgrade(g *globals) *cobra.Command {
	var (
		f     format
		vf    verifyFlags
		vr    versionFlag
		first bool
	)
	cmd := &cobra.Command{
		Use:   "check-upgrade PREVIOUS_REF NEW_DIR",
		Short: "Check that users of the previous release can upgrade to NEW_DIR with their config",
		Long: `check-upgrade compares the config schema of the previous release (a reference, verified as
render verifies it, or a layout or directory) with the one of the source directory NEW_DIR:
every property removed, every type changed, every newly required property without a
schema default and every constraint that refuses old values (an enum value gone, a bound
raised or lowered, a pattern or checked format added or changed, additionalProperties turned
false) must be covered by a conversion rule of NEW_DIR (move, rename, delete or set it, or
fail with a message whose if names it) or, for a required property, by the packed defaults. The previous config version must be one NEW_DIR reads, with the same schema. It
then converts the previous release's packed defaults and test vectors with NEW_DIR and
resolves them. It exits 3 and lists every problem when one is found; run it before a push.

` + versionHelp + `
A release pipeline names the previous release with --version "<NEW_VERSION" (the highest
version below the one being released). --allow-first-release, with --version, makes a
repository that holds no version the range matches, or does not exist yet, pass as a first
release ("no previous release: …", exit 0): no user's config can break. Every other failure
(unreachable or denying registry, failed verification) still fails.`,
		Example: `  addonpack config check-upgrade localhost:5000/addons/hello:0.1.0 ./hello --key release.pub
  addonpack config check-upgrade localhost:5000/addons/hello ./hello --version 0.1.x --allow-first-release --key release.pub`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			prevArg, none := args[0], ""
			switch {
			case first && vr.text == "":
				return usageError{fmt.Errorf("--allow-first-release needs --version: a range says which versions would be a previous release")}
			case first:
				// The trust flags are checked even when there is nothing to verify yet,
				// so a broken pipeline fails on its first release, not its second.
				if _, err := vf.policy(ctx, g); err != nil {
					return err
				}
				var err error
				if prevArg, none, err = vr.pinOrNone(ctx, g, args[0]); err != nil {
					return err
				}
			default:
				var err error
				if prevArg, err = vr.pin(ctx, g, args[0]); err != nil {
					return err
				}
			}
			next, err := consume.OpenDir(args[1], archive.DefaultLimits())
			if err != nil {
				return err
			}
			if none != "" {
				return printUpgradeReport(g, f, upgrade.FirstRelease(none), args[1], nil)
			}
			prev, err := g.open(ctx, prevArg, &vf, semver.Version{}, true)
			if err != nil {
				return err
			}
			defer prev.Close()
			report, err := upgrade.CheckPackages(prev, next)
			if report == nil {
				return err
			}
			return printUpgradeReport(g, f, report, args[1], err)
		},
	}
	cmd.Flags().BoolVar(&first, "allow-first-release", false, "with --version: pass when the repository holds no version the range matches, or does not exist yet (a first release)")
	addFormat(cmd, &f, true)
	vf.add(cmd, true)
	vr.add(cmd)
	return cmd
}

// printUpgradeReport prints check-upgrade's report and returns checkErr,
// the check's verdict, unless printing failed.
func printUpgradeReport(g *globals, f format, report *upgrade.Report, next string, checkErr error) error {
	perr := f.print(g.streams.Out, report, func(w io.Writer) error { return report.WriteText(w, next, checkErr == nil) })
	if checkErr != nil {
		return checkErr
	}
	return perr
}
