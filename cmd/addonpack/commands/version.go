package commands

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is stamped by release builds at link time (the Makefile and the
// Dockerfile pass -ldflags "-X ...commands.version=$(git describe)"); it
// is never written at run time.
var version string

// buildVersion is the version provenance and the user agent carry.
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

// versionOf picks the most precise version known: the one stamped at link
// time, else the module version (a tag for `go install …@vX.Y.Z`, a
// pseudo-version for a VCS-stamped build), else "devel+REVISION[-dirty]"
// from the VCS stamp, else "(devel)".
func versionOf(linked string, bi *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if bi == nil {
		return "(devel)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	return "devel+" + rev[:min(12, len(rev))] + dirty
}

func newVersion(g *globals) *cobra.Command {
	var f format
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print addonpack's version",
		Args:  exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			v := struct {
				Version  string `json:"version"`
				Go       string `json:"go"`
				Platform string `json:"platform"`
			}{buildVersion(), runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH}
			return f.print(g.streams.Out, v, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "addonpack %s %s %s\n", v.Version, v.Go, v.Platform)
				return err
			})
		},
	}
	addFormat(cmd, &f, true)
	return cmd
}
