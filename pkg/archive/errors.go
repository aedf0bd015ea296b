package archive

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Sentinel errors. Every error returned by Scan, Write and Extract that is
// caused by the content of the tree or of the archive wraps exactly one of
// them; match with errors.Is.
var (
	// ErrUnsafePath: an absolute path, a ".." element, a name that is not
	// local, a backslash, NUL or other control character, a drive letter,
	// invalid UTF-8, or a symlink whose target leaves the package root.
	ErrUnsafePath = errdef.New(errdef.ErrInvalid, "unsafe path")
	// ErrEntryType: a symlink, hardlink, device, FIFO, socket, sparse file or
	// any other entry that is neither a regular file nor a directory.
	ErrEntryType = errdef.New(errdef.ErrInvalid, "unsupported entry type")
	// ErrDuplicate: the same path twice, or two paths equal after cleaning or
	// case-folding, including a file and a directory of the same name.
	ErrDuplicate = errdef.New(errdef.ErrInvalid, "duplicate entry")
	// ErrLimit: any violation of Limits.
	ErrLimit = errdef.New(errdef.ErrInvalid, "limit exceeded")
	// ErrIgnoreFile: the .addonpackignore file is malformed.
	ErrIgnoreFile = errdef.New(errdef.ErrInvalid, "invalid .addonpackignore")
	// ErrFormat: the stream is not a well-formed tar+gzip archive (corrupt
	// gzip or tar data, missing end-of-archive, trailing data, size mismatch).
	ErrFormat = errdef.New(errdef.ErrInvalid, "malformed archive")
	// ErrFileChanged: a file's content length differs from File.Size while
	// it is written (the file changed after Scan).
	ErrFileChanged = errdef.New(errdef.ErrInvalid, "file changed while packing")
)

// PathError records the package path (or archive entry name) an error is
// about.
type PathError struct {
	Path string // slash path relative to the package root, or the entry name
	Err  error
}

// Error returns "<path>: <err>". A path holding non-printable characters
// (possible only for hostile archive entries) is quoted with strconv.Quote
// so that it cannot inject terminal control sequences into logs.
func (e *PathError) Error() string {
	return displayPath(e.Path) + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *PathError) Unwrap() error { return e.Err }

func displayPath(p string) string {
	if p == "" {
		return `""`
	}
	if !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}

// pathErr wraps err with a PathError for p.
func pathErr(p string, err error) error {
	return &PathError{Path: p, Err: err}
}
