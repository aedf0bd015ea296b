package commands

import (
	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/archive"
)

// limitFlags raise or lower the package tree limits of specs/artifact.md.
type limitFlags struct{ l archive.Limits }

func newLimitFlags() *limitFlags { return &limitFlags{l: archive.DefaultLimits()} }

func (lf *limitFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.IntVar(&lf.l.MaxEntries, "max-entries", lf.l.MaxEntries, "most files and directories in the tree")
	f.Int64Var(&lf.l.MaxFileSize, "max-file-size", lf.l.MaxFileSize, "largest file, in bytes")
	f.Int64Var(&lf.l.MaxTotalSize, "max-total-size", lf.l.MaxTotalSize, "largest tree, in bytes (uncompressed)")
	f.IntVar(&lf.l.MaxPathLength, "max-path-length", lf.l.MaxPathLength, "longest path, in bytes")
	f.IntVar(&lf.l.MaxDepth, "max-depth", lf.l.MaxDepth, "deepest path, in components")
	f.IntVar(&lf.l.MaxCompressionRatio, "max-compression-ratio", lf.l.MaxCompressionRatio, "highest uncompressed/compressed ratio")
}

func (lf *limitFlags) limits() (archive.Limits, error) { return lf.l, nil }
