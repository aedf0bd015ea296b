package commands

import (
	"encoding/json"
	"fmt"
	"io"

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

// addFormat registers --format; with short, also -o/--output as its alias
// (for commands whose -o is not a directory).
func addFormat(cmd *cobra.Command, f *format, short bool) {
	*f = formatText
	cmd.Flags().Var(f, "format", "output format: text or json")
	if short {
		cmd.Flags().VarP(f, "output", "o", "output format: text or json (same as --format)")
	}
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
