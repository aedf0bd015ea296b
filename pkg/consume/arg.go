package consume

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
)

// ErrNotUsable is matched by errors about a path that exists but is neither
// an add-on source directory nor an OCI layout (directory or tarball).
var ErrNotUsable = errdef.New(errdef.ErrInvalid, "not an add-on source directory or OCI layout")

// Kind says what an argument names.
type Kind int

// The kinds of argument. KindReference is the zero value (ParseArg says
// when an argument is a path).
const (
	KindReference Kind = iota
	KindSourceDir      // a directory holding addon.yaml
	KindLayoutDir      // an OCI image layout directory
	KindTarball        // an OCI layout tarball (any regular file)
)

func (k Kind) String() string {
	switch k {
	case KindSourceDir:
		return "add-on source directory"
	case KindLayoutDir:
		return "OCI layout"
	case KindTarball:
		return "OCI layout tarball"
	}
	return "registry reference"
}

// Arg is a classified argument.
type Arg struct {
	Raw  string
	Kind Kind
	// Ref is the parsed reference, when Kind is Reference.
	Ref registry.Reference
	// Path is the local path ("~" expanded) and, for layouts, Layout is the
	// "PATH[:TAG]" form layout.Open takes; both empty for a reference.
	Path, Layout string
}

// IsPath reports whether arg is written as a path rather than a reference.
func IsPath(arg string) bool {
	switch arg {
	case ".", "..", "~":
		return true
	}
	for _, p := range []string{"./", "../", "/", "~/", `.\`, `..\`} {
		if strings.HasPrefix(arg, p) {
			return true
		}
	}
	return filepath.IsAbs(arg)
}

// ErrAmbiguousArg is matched when an argument is both a registry reference
// and an existing local path: neither reading is taken.
var ErrAmbiguousArg = errdef.New(errdef.ErrInvalidArgument, "both a registry reference and a local path")

// ParseArg classifies arg. An argument written as a path is a path. Any
// other is a registry reference if it parses as one (registry hosts
// canonical); if not, it is a path when one of that name exists (kubectl
// apply -k DIR, helm template DIR); if it is both, it is refused naming
// both readings, so a checkout never stands in for a verified artifact
// nor the other way round. A path is looked at on disk. Errors wrap
// registry.ErrInvalidReference or ErrAmbiguousArg (usage errors),
// fs.ErrNotExist (a path that does not exist) or ErrNotUsable.
func ParseArg(arg string) (Arg, error) {
	if IsPath(arg) {
		return parsePath(arg)
	}
	ref, err := ParseReference(arg)
	exists := pathExists(arg)
	switch {
	case err == nil && exists:
		return Arg{}, fmt.Errorf("%q: %w: the reference %s and the local path ./%s; write ./%s for the path, or move it away to use the reference",
			arg, ErrAmbiguousArg, ref, arg, arg)
	case err == nil:
		return Arg{Raw: arg, Kind: KindReference, Ref: ref}, nil
	case exists:
		return parsePath(arg)
	}
	return Arg{}, err
}

// pathExists reports whether arg, or its path before a :TAG, exists.
func pathExists(arg string) bool {
	path, _ := layout.Split(arg)
	for _, p := range []string{arg, path} {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// parsePath classifies arg as a local path.
func parsePath(arg string) (Arg, error) {
	p := expandHome(arg)
	path, tag := layout.Split(p)
	fi, err := os.Stat(path)
	if err != nil {
		return Arg{}, fmt.Errorf("%s: %w", arg, err)
	}
	a := Arg{Raw: arg, Path: path}
	switch {
	case fi.Mode().IsRegular():
		a.Kind, a.Layout = KindTarball, p
	case !fi.IsDir():
		return Arg{}, fmt.Errorf("%s: %w: neither a directory nor a file", arg, ErrNotUsable)
	case isFile(filepath.Join(path, spec.FileName)):
		if tag != "" {
			return Arg{}, fmt.Errorf("%s: %w: an add-on source directory takes no :TAG", arg, ErrNotUsable)
		}
		a.Kind = KindSourceDir
	case isFile(filepath.Join(path, "oci-layout")):
		a.Kind, a.Layout = KindLayoutDir, p
	default:
		return Arg{}, fmt.Errorf("%s: %w: the directory has neither %s nor oci-layout", arg, ErrNotUsable, spec.FileName)
	}
	return a, nil
}

// ParseReference parses arg as a registry reference under the rule of this
// package: it must not be written as a path and must have a registry part.
func ParseReference(arg string) (registry.Reference, error) {
	if IsPath(arg) {
		return registry.Reference{}, fmt.Errorf("%w %q: a path, not a registry reference (REGISTRY/REPOSITORY[:TAG], e.g. localhost:5000/addons/hello:0.1.0)",
			registry.ErrInvalidReference, arg)
	}
	first, _, hasSlash := strings.Cut(arg, "/")
	if !hasSlash || !isHost(first) {
		return registry.Reference{}, fmt.Errorf("%w %q: no registry part (REGISTRY/REPOSITORY[:TAG], e.g. localhost:5000/addons/hello:0.1.0); a local directory or layout is written as a path: ./%s",
			registry.ErrInvalidReference, arg, arg)
	}
	return registry.ParseReference(arg)
}

// isHost reports whether s reads as a registry host, by the rule docker and
// the distribution reference grammar use: a '.' or ':' in it, an IPv6
// literal, or localhost.
func isHost(s string) bool {
	return strings.ContainsAny(s, ".:[") || strings.EqualFold(s, "localhost")
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// expandHome replaces a leading "~" with the user's home directory, for
// arguments a shell did not expand (quoted, or from a file).
func expandHome(arg string) string {
	if arg != "~" && !strings.HasPrefix(arg, "~/") {
		return arg
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return arg
	}
	return filepath.Join(home, strings.TrimPrefix(arg, "~"))
}

// TrustFor refuses trust named for an argument it cannot apply to: an add-on
// source directory is the user's own files and is never verified, so a key,
// policy or keyless identity given with one would be silently ignored — and
// a caller that chose the argument from someone else's input (an Argo CD
// plugin reading the Application's parameter) would render unverified
// content it meant to verify. named says whether keys, a policy or keyless
// identities were given (not --insecure-skip-verify).
func (a Arg) TrustFor(named bool) error {
	if named && a.Kind == KindSourceDir {
		return fmt.Errorf("%s is an add-on source directory, which is never verified: keys, a policy and keyless identities apply to registry references (drop them to use your own source, or push it and name the reference): %w", a.Raw, ErrUnverifiable)
	}
	return nil
}
