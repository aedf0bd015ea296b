package archive

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Limits bound what Scan/Write accept and what Extract unpacks. The same
// numbers are normative in specs/artifact.md.
//
// A zero or negative field means "use the default" (see DefaultLimits); there
// is deliberately no way to switch a limit off.
type Limits struct {
	MaxEntries          int   // files + directories; default 10000
	MaxFileSize         int64 // default 64 MiB
	MaxTotalSize        int64 // uncompressed sum of file sizes; default 512 MiB
	MaxPathLength       int   // bytes of the slash path; default 1024
	MaxDepth            int   // path components; default 32
	MaxCompressionRatio int   // uncompressed/compressed; default 200; only enforced once the uncompressed total exceeds 1 MiB
}

const (
	defaultMaxEntries          = 10000
	defaultMaxFileSize         = 64 << 20
	defaultMaxTotalSize        = 512 << 20
	defaultMaxPathLength       = 1024
	defaultMaxDepth            = 32
	defaultMaxCompressionRatio = 200

	// ratioThreshold is the uncompressed size (bytes of the tar stream) up
	// to which MaxCompressionRatio is not enforced.
	ratioThreshold = 1 << 20

	// maxElementLength is the longest file name common file systems
	// accept (NAME_MAX).
	maxElementLength = 255
)

// DefaultLimits returns the limits of specs/artifact.md.
func DefaultLimits() Limits {
	return Limits{
		MaxEntries:          defaultMaxEntries,
		MaxFileSize:         defaultMaxFileSize,
		MaxTotalSize:        defaultMaxTotalSize,
		MaxPathLength:       defaultMaxPathLength,
		MaxDepth:            defaultMaxDepth,
		MaxCompressionRatio: defaultMaxCompressionRatio,
	}
}

// Normalized returns l with every zero or negative field set to its default.
func (l Limits) Normalized() Limits { return l.normalized() }

func (l Limits) normalized() Limits {
	d := DefaultLimits()
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxFileSize <= 0 {
		l.MaxFileSize = d.MaxFileSize
	}
	if l.MaxTotalSize <= 0 {
		l.MaxTotalSize = d.MaxTotalSize
	}
	if l.MaxPathLength <= 0 {
		l.MaxPathLength = d.MaxPathLength
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxCompressionRatio <= 0 {
		l.MaxCompressionRatio = d.MaxCompressionRatio
	}
	return l
}

// checkPathLimits applies MaxPathLength and MaxDepth to a clean slash path.
func (l Limits) checkPathLimits(p string) error {
	if len(p) > l.MaxPathLength {
		return fmt.Errorf("%w: path is %d bytes, limit %d", ErrLimit, len(p), l.MaxPathLength)
	}
	if d := strings.Count(p, "/") + 1; d > l.MaxDepth {
		return fmt.Errorf("%w: path has %d components, limit %d", ErrLimit, d, l.MaxDepth)
	}
	return nil
}

// checkName reports whether p is acceptable as a package path: valid UTF-8,
// no control characters (NUL included), no backslash, no drive letter, no
// element longer than 255 bytes, and clean, relative and local (fs.ValidPath,
// no "." or ".." element). The same rule applies on both sides, so that
// anything Scan/Write accepts can be extracted.
func checkName(p string) error {
	if p == "" {
		return fmt.Errorf("%w: empty path", ErrUnsafePath)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("%w: not valid UTF-8", ErrUnsafePath)
	}
	for _, r := range p {
		switch {
		case r < 0x20 || r == 0x7f:
			return fmt.Errorf("%w: control character %q", ErrUnsafePath, r)
		case r == '\\':
			return fmt.Errorf("%w: backslash", ErrUnsafePath)
		}
	}
	if len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]) {
		return fmt.Errorf("%w: drive letter", ErrUnsafePath)
	}
	if p[0] == '/' {
		return fmt.Errorf("%w: absolute path", ErrUnsafePath)
	}
	for _, elem := range strings.Split(p, "/") {
		switch elem {
		case "..":
			return fmt.Errorf("%w: %q element", ErrUnsafePath, "..")
		case ".", "":
			return fmt.Errorf("%w: not a clean path", ErrUnsafePath)
		}
		if len(elem) > maxElementLength {
			return fmt.Errorf("%w: path element longer than %d bytes", ErrUnsafePath, maxElementLength)
		}
	}
	if path.Clean(p) != p {
		return fmt.Errorf("%w: not a clean path", ErrUnsafePath)
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return fmt.Errorf("%w: not a local path", ErrUnsafePath)
	}
	return nil
}

func isASCIILetter(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// parents returns the directories implied by the slash path p, outermost
// first ("a/b/c" -> "a", "a/b").
func parents(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}
