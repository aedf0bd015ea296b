package relocate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TrustedRootFile is the top-level file of a copy tarball that carries a
// Sigstore trusted root (Options.CarryTrustedRoot).
const TrustedRootFile = "trusted_root.json"

// ExtractTrustedRoot writes the trusted root carried in the OCI layout
// tarball spec ("PATH" or "PATH:TAG") to out and returns its digest, and
// whether out was created (false: out already held the same bytes). It
// grants no trust: a policy pinning the digest does (specs/policy.md, "A
// trusted root across an air gap"). An out with other bytes is refused
// (errdef.ErrExists); a tarball without one is fs.ErrNotExist.
func ExtractTrustedRoot(spec, out string) (string, bool, error) {
	path, _ := layout.Split(spec)
	raw, err := ReadLayoutFile(path, TrustedRootFile, verify.MaxTrustedRootSize)
	if err != nil {
		return "", false, fmt.Errorf("%w (copy --to-tarball --carry-trusted-root stores one)", err)
	}
	where := path + " " + TrustedRootFile
	if have, err := readAtMost(out, int64(len(raw))+1); err == nil {
		if !bytes.Equal(have, raw) {
			return "", false, fmt.Errorf("%s: %w with other content than the tarball's %s", out, errdef.ErrExists, TrustedRootFile)
		}
		r, err := verify.ParseTrustedRoot("carried", raw, where, "")
		if err != nil {
			return "", false, err
		}
		return r.Digest, false, nil
	}
	digest, err := verify.WriteTrustedRootFile(raw, where, out, false)
	return digest, err == nil, err
}

// CheckCarriedTrustedRoot checks the trusted root the OCI layout (tarball
// or directory) at path carries, if it carries one, as keyless
// verification reads roots: bounded, parsed, with a certificate authority
// and a log or timestamping authority. It returns the root's digest, ""
// when there is none. A stack import checks it before anything is copied,
// as it checks the lock (specs/stack.md section 4.4).
func CheckCarriedTrustedRoot(path string) (string, error) {
	raw, err := ReadLayoutFile(path, TrustedRootFile, verify.MaxTrustedRootSize)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	r, err := verify.ParseTrustedRoot("carried", raw, path+" "+TrustedRootFile, "")
	if err != nil {
		return "", err
	}
	return r.Digest, nil
}

// readAtMost reads up to n bytes of path: enough to tell whether it holds
// exactly n-1 given bytes, however large the file is.
func readAtMost(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
