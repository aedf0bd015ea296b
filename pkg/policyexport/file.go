package policyexport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

// maxPolicyFile bounds the policy file read (verify.LoadPolicy's bound).
const maxPolicyFile = 1 << 20

// ExportFile loads the policy file at path (keys by path relative to it,
// getenv for env:// keys; nil means os.Getenv) and exports it (Export).
func ExportFile(ctx context.Context, path string, getenv func(string) string, opts Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxPolicyFile+1))
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	if len(raw) > maxPolicyFile {
		return nil, fmt.Errorf("policy %s: %w: larger than %d bytes", path, verify.ErrPolicy, maxPolicyFile)
	}
	p, err := verify.ParsePolicy(ctx, raw, path, getenv)
	if err != nil {
		return nil, err
	}
	opts.Policy, opts.File = raw, path
	return Export(ctx, p, opts)
}

// WriteDir writes each file of r into dir (made if missing), the Header's
// comments at the top of each, all of them or none (atomicfile.WriteFiles:
// staged beside them, moved into place when all are written, taken back
// if one cannot be). A file that exists is refused (errdef.ErrExists)
// unless force; a symlink at a name is replaced, never written through.
func (r *Result) WriteDir(dir string, force bool) error {
	files := make(map[string][]byte, len(r.Files))
	for _, f := range r.Files {
		files[f.Name] = append(append([]byte(nil), r.Header...), f.Data...)
	}
	if err := atomicfile.WriteFiles(dir, files, force); err != nil {
		if errors.Is(err, errdef.ErrExists) {
			return fmt.Errorf("-o %s: %w (--force replaces it)", dir, err)
		}
		return fmt.Errorf("-o %s: %w", dir, err)
	}
	return nil
}

// WriteOutput writes r where -o out says: the YAML stream to stdout for ""
// or "-", else one file per part into the directory out (WriteDir), saying
// so on msgs.
func (r *Result) WriteOutput(stdout, msgs io.Writer, out string, force bool) error {
	if out == "" || out == "-" {
		_, err := stdout.Write(r.Stream())
		return err
	}
	if err := r.WriteDir(out, force); err != nil {
		return err
	}
	fmt.Fprintf(msgs, "Wrote %d files to %s\n", len(r.Files), out)
	return nil
}
