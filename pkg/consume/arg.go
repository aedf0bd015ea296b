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

// The kinds of argument. Reference is the zero value: an argument is a
// reference unless it is written as a path.
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

// Parse classifies arg. A reference is parsed (registry hosts canonical);
// a path is looked at on disk. Errors wrap registry.ErrInvalidReference (a
// usage error), fs.ErrNotExist (a path that does not exist) or ErrNotUsable.
func ParseArg(arg string) (Arg, error) {
	if !IsPath(arg) {
		ref, err := ParseReference(arg)
		if err != nil {
			return Arg{}, err
		}
		return Arg{Raw: arg, Kind: KindReference, Ref: ref}, nil
	}
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
