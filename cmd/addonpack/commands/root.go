// Package commands is addonpack's command line: cobra commands that parse
// flags, call one pkg/ function each, and print the result. No logic lives
// here.
package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Streams are the command's standard streams: data to Out, messages to Err.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// Getenv reads the environment; main passes os.Getenv, tests a map lookup.
type Getenv func(string) string

// New returns the root command, with every command under it.
func New(streams Streams, getenv Getenv) *cobra.Command {
	root, _ := newRoot(streams, getenv, nil)
	return root
}

// verb is one of the root's commands, by name.
type verb struct {
	name string
	new  func(*globals) *cobra.Command
}

// verbs are the root's commands (help lists them sorted by cobra).
func verbs() []verb {
	return []verb{
		{"init", newInit}, {"build", newBuild}, {"push", newPush}, {"pull", newPull}, {"inspect", newInspect},
		{"render", newRender}, {"config", newConfig}, {"diff", newDiff},
		{"registry", newRegistry}, {"version", newVersion},
		{"keygen", newKeygen},
		{"sign", newSign}, {"vet", newVet},
		{"attest", newAttest},
		{"verify", newVerify}, {"trusted-root", newTrustedRoot}, {"policy", newPolicy},
		{"copy", newCopy}, {"mirror", newMirror},
		{"versions", newVersions},
		{"lock", newLock}, {"upgrade", newUpgrade},
		{"prune", newPrune},
		{"preflight", newPreflight},
	}
}

// newRoot returns the root command and the globals its commands share.
// When args start with a verb, only that verb is built: the ~400 flags of
// all of them cost about 2 ms of every run (pflag formats each repeatable
// flag's default through encoding/csv), a twentieth of a verified pull of
// a small add-on. Anything else (no verb, a flag first, help, completion,
// a mistyped verb that wants suggestions) gets the whole tree.
func newRoot(streams Streams, getenv Getenv, args []string) (*cobra.Command, *globals) {
	g := &globals{streams: streams, getenv: getenv}
	root := &cobra.Command{
		Use:   "addonpack",
		Short: "Package, sign, publish and consume Kubernetes add-ons as OCI artifacts",
		Long: `addonpack packs a Kubernetes add-on — a kustomize base, an addon.yaml manifest and a
component-config schema — into a reproducible OCI artifact that any registry can hold,
and pulls it back checked, ready for kubectl, Flux or Argo CD.`,
		Example: `  addonpack init hello
  addonpack build hello
  COSIGN_PASSWORD=secret addonpack keygen --output-key-prefix release
  COSIGN_PASSWORD=secret addonpack push hello localhost:5000/addons/hello:0.1.0 --key release.key
  addonpack inspect localhost:5000/addons/hello:0.1.0
  addonpack verify localhost:5000/addons/hello:0.1.0 --key release.pub --require-provenance
  addonpack pull localhost:5000/addons/hello:0.1.0 -o ./hello-pulled --key release.pub`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			g.startProgress()
			return checkOutputPath(cmd)
		},
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	g.addFlags(root)
	all := verbs()
	for _, v := range all {
		if len(args) > 0 && v.name == args[0] {
			root.AddCommand(v.new(g))
			groups(root)
			return root, g
		}
	}
	for _, v := range all {
		root.AddCommand(v.new(g))
	}
	groups(root)
	return root, g
}

// groups makes every command that only groups others (the root, config,
// registry, trusted-root) refuse an unknown subcommand as a usage error
// (exit 2, with cobra's suggestions) and show its help when given none;
// cobra's own refusal is a plain error (exit 1).
func groups(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		groups(c)
	}
	if cmd.Runnable() || !cmd.HasSubCommands() {
		return
	}
	cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which SuggestionsFor does not apply
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageError{errors.New(msg)}
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// maxArgs is cobra.MaximumNArgs whose error maps to the usage exit code.
func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MaximumNArgs(n)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// exactArgs is cobra.ExactArgs whose error maps to the usage exit code.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// isFormatName reports whether s names an output format somewhere in
// addonpack.
func isFormatName(s string) bool {
	switch s {
	case "json", "yaml", "text", "kustomize", "jsonschema", "openapi", "crd":
		return true
	}
	return false
}

// checkOutputPath refuses -o FORMAT on a command whose -o is a path (build,
// pull, render, config convert, trusted-root): "-o json" there would
// otherwise write a file or directory named json. A path of that name
// that exists, or one written as a path (./json), is taken as it is.
func checkOutputPath(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("output")
	if f == nil || !f.Changed || f.Value.Type() != "string" {
		return nil // not a path flag: -o is --format's deprecated alias there
	}
	p := f.Value.String()
	if !isFormatName(p) {
		return nil
	}
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	return usageError{fmt.Errorf("-o %s: %s's -o names the file or directory to write, and %q does not exist; for the output format use --format %s (write -o ./%s to mean that path)", p, cmd.CommandPath(), p, p, p)}
}
