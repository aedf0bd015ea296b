package relocate

import (
	"fmt"
	"io"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Request is what copy's command line asks for: which way (registry to
// registry, to a tarball, from one), one add-on or a locked stack, and a
// trusted root carried across. Its checks are usage errors
// (errdef.ErrUsage), made before anything is read.
type Request struct {
	ToTarball, FromTarball string
	Stack                  bool
	// CarryTrustedRoot is the trusted root to store in the tarball,
	// TrustedRootOut where to write the one a tarball carries.
	CarryTrustedRoot, TrustedRootOut string
	// KeylessRoot: a trusted root was given as trust (--trusted-root).
	KeylessRoot bool
}

// CheckArgs refuses tarball flags that exclude each other and a number of
// arguments the mode does not take: SRC DST; SRC with --to-tarball; DST
// with --from-tarball; with Stack, none with --to-tarball and DST (a
// registry and path prefix) with --from-tarball.
func (r Request) CheckArgs(n int) error {
	want := 2
	if r.ToTarball != "" || r.FromTarball != "" {
		want = 1
	}
	switch {
	case r.ToTarball != "" && r.FromTarball != "":
		return errdef.Usagef("give --to-tarball or --from-tarball, not both")
	case r.Stack:
		return r.checkStackArgs(n)
	case n != want:
		return errdef.Usagef("want %d argument(s) (%s), got %d", want, map[int]string{1: "SRC with --to-tarball, DST with --from-tarball", 2: "SRC DST"}[want], n)
	}
	return nil
}

func (r Request) checkStackArgs(n int) error {
	switch {
	case r.ToTarball != "" && n == 0, r.FromTarball != "" && n == 1:
		return nil
	case r.ToTarball == "" && r.FromTarball == "":
		return errdef.Usagef("--stack copies a locked stack across an air gap: give --to-tarball OUT, or --from-tarball IN and DST")
	case r.ToTarball != "":
		return errdef.Usagef("--stack --to-tarball takes no argument (the stack file names the add-ons), got %d", n)
	}
	return errdef.Usagef("--stack --from-tarball takes one argument, DST (REGISTRY/PREFIX: each add-on goes to DST/NAME), got %d", n)
}

// CheckTrustedRoot checks where a carried trusted root applies: a tarball
// (of one add-on or a stack), each flag on its side; a carried root is
// trusted only through a policy's pinned digest, never as --trusted-root
// (which pins nothing).
func (r Request) CheckTrustedRoot() error {
	switch {
	case r.CarryTrustedRoot != "" && r.ToTarball == "":
		return errdef.Usagef("--carry-trusted-root goes with --to-tarball")
	case r.TrustedRootOut != "" && r.FromTarball == "":
		return errdef.Usagef("--trusted-root-out goes with --from-tarball")
	case r.TrustedRootOut != "" && r.KeylessRoot:
		return errdef.Usagef("--trusted-root-out with --trusted-root would trust the carried root without a pinned digest: pin its digest in a --policy instead (specs/policy.md)")
	}
	return nil
}

// WriteText prints a copy: what was copied, each image and where the copy
// was verified on log, the destination on w.
func (r *Result) WriteText(w, log io.Writer) error {
	for _, it := range r.Items {
		fmt.Fprintf(log, "copied %-8s %s %s\n", it.Kind, it.Descriptor.Digest, it.Tag)
	}
	for _, m := range r.Images {
		fmt.Fprintf(log, "image %s -> %s@%s\n", m.Source, m.NewName, m.Digest)
	}
	if r.Verification != nil {
		fmt.Fprintf(log, "verified at the destination: signed by %v\n", r.Verification.SignedBy)
	} else if r.SourceVerification != nil {
		fmt.Fprintf(log, "verified at the source: signed by %v\n", r.SourceVerification.SignedBy)
	}
	_, err := fmt.Fprintln(w, r.Destination)
	return err
}
