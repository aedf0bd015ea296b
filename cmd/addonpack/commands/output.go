package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// format is the --format/-o flag of commands that print data.
type format string

const (
	formatText format = "text"
	formatJSON format = "json"
)

func (f *format) String() string { return string(*f) }
func (f *format) Type() string   { return "text|json" }
func (f *format) Set(s string) error {
	switch format(s) {
	case formatText, formatJSON:
		*f = format(s)
		return nil
	}
	return fmt.Errorf("must be text or json, not %q", s)
}

// addFormat registers --format; with deprecatedAlias, also -o/--output as
// its deprecated alias: these data verbs once took the format there, and
// one rule now holds on every verb (-o names a path, --format a format), so
// scripts that say -o json keep working and are told so on stderr.
func addFormat(cmd *cobra.Command, f *format, deprecatedAlias bool) {
	*f = formatText
	cmd.Flags().Var(f, "format", "output format: text or json")
	if deprecatedAlias {
		cmd.Flags().VarP(&formatAlias{f: f, cmd: cmd}, "output", "o", "deprecated: use --format")
		_ = cmd.Flags().MarkHidden("output")
	}
}

// formatAlias is -o/--output on the data verbs: it sets the format and says
// on stderr that --format is the flag. (pflag's own deprecation notice would
// go to cobra's output stream, which is stdout here, into the JSON.)
type formatAlias struct {
	f   *format
	cmd *cobra.Command
}

func (a *formatAlias) String() string { return a.f.String() }
func (a *formatAlias) Type() string   { return a.f.Type() }
func (a *formatAlias) Set(s string) error {
	if err := a.f.Set(s); err != nil {
		return err
	}
	fmt.Fprintf(a.cmd.ErrOrStderr(), "addonpack: -o/--output %s is deprecated on %s: use --format %s (-o names an output path, as on build, pull and render)\n", s, a.cmd.CommandPath(), s)
	return nil
}

// print writes v as indented JSON, or calls text for the human form
// (specs/cli-output.md describes each command's JSON).
func (f format) print(w io.Writer, v any, text func(io.Writer) error) error {
	if f == formatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	return text(w)
}

// firstOf is the error of a batch whose items ended with errs (nil for
// those that succeeded): nil, or the first failure, counted.
func firstOf(errs []error, what string) error {
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d %s failed; the first: %w", len(failed), len(errs), what, failed[0])
}

// write writes b to stdout (out "" or "-") or to the file out.
func (g *globals) write(out string, b []byte) error {
	if out == "" || out == "-" {
		_, err := g.streams.Out.Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
