package commands

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/vcs"
)

func newBuild(g *globals) *cobra.Command {
	var out build.Output
	var f format
	lf := newLimitFlags()
	cmd := &cobra.Command{
		Use:   "build DIR",
		Short: "Validate and pack an add-on; print its digest",
		Long: `build validates addon.yaml, the component-config schema and defaults, builds the
kustomization in process, packs the tree reproducibly and prints the manifest digest.
With -o it writes an OCI image layout directory, with --tarball an OCI layout tarball,
which 'addonpack push' accepts as its source.

The digest depends only on the package files and two annotations: created (from
SOURCE_DATE_EPOCH, else the git commit time, else 1970-01-01) and revision (the git commit).`,
		Example: `  addonpack build ./hello
  addonpack build ./hello -o ./hello-layout
  SOURCE_DATE_EPOCH=1700000000 addonpack build ./hello --tarball hello.tar`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := g.buildOptions(cmd.Context())
			if err != nil {
				return err
			}
			limits, err := lf.limits()
			if err != nil {
				return err
			}
			opts.Limits = &limits
			opts.Progress = g.progress.Packing("Packing " + args[0])
			done := g.progress.Activity("Building " + args[0])
			res, err := build.Package(cmd.Context(), args[0], out, opts)
			done(err)
			if err != nil {
				return err
			}
			return f.print(g.streams.Out, res, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "%s\n", res.Manifest.Digest)
				return err
			})
		},
	}
	cmd.Flags().StringVarP(&out.LayoutDir, "output", "o", "", "write an OCI image layout directory")
	cmd.Flags().StringVar(&out.Tarball, "tarball", "", "write an OCI image layout tarball")
	cmd.Flags().StringVar(&out.Tag, "tag", "", "tag in the layout (default: the add-on version)")
	lf.add(cmd)
	addFormat(cmd, &f, false)
	return cmd
}

// buildOptions reads SOURCE_DATE_EPOCH and enables git facts.
func (g *globals) buildOptions(context.Context) (build.Options, error) {
	opts := build.Options{VCS: vcs.Git{}}
	// Trees that passed the render check are remembered in the cache
	// (sealed records), by layer digest and this binary's identity.
	if ch, err := g.cache(); err == nil && ch != nil {
		opts.Memo, opts.Renderer = ch, rendererID()
	}
	if s := g.getenv("SOURCE_DATE_EPOCH"); s != "" {
		secs, err := strconv.ParseInt(s, 10, 64)
		if err != nil || secs < 0 || strings.Trim(s, "0123456789") != "" {
			return opts, usageError{fmt.Errorf("SOURCE_DATE_EPOCH=%q: must be a non-negative integer number of seconds", s)}
		}
		t := time.Unix(secs, 0).UTC()
		opts.Created = &t
	}
	return opts, nil
}

// rendererID identifies this binary for remembered render checks: the
// build info in full (module versions and sums, replacements of
// dependencies, build settings such as tags and flags) and, for a build
// without a release version, the executable file itself (device, inode,
// size, modification and change times: a rebuilt development binary does
// not trust its predecessor's checks, and ctime cannot be set back by hand).
// "" (no memo) when any of it cannot be read.
func rendererID() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString(bi.String()) // main module, deps with replacements and sums, settings
	if v := bi.Main.Version; v == "" || v == "(devel)" || strings.Contains(v, "+dirty") {
		exe, err := os.Executable()
		if err != nil {
			return ""
		}
		fi, err := os.Stat(exe)
		if err != nil {
			return ""
		}
		id := fileIdentity(fi)
		if id == "" {
			return ""
		}
		fmt.Fprintf(&b, "\nexe %s %d %d", id, fi.Size(), fi.ModTime().UnixNano())
	}
	return b.String()
}
