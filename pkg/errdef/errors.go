package errdef

import (
	"errors"
	"fmt"
	"io/fs"
)

// The root classes. Sentinels wrap exactly one of them; match with errors.Is.
var (
	// ErrInvalidArgument: an argument the caller passed is malformed — a
	// reference that does not parse, an unknown format name. The CLI reports
	// it as a command-line mistake.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrInvalid: input content is invalid or refused — an add-on source,
	// addon.yaml, a schema, a config, a kustomization, an artifact, an
	// unsafe archive, a key or a policy file.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFound: the reference, tag, digest, blob, file or cache entry
	// does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnreachable: a registry could not be reached (DNS, connection,
	// TLS, timeout).
	ErrUnreachable = errors.New("unreachable")
	// ErrDenied: the registry refused the credentials, or there were none.
	ErrDenied = errors.New("denied")
	// ErrIntegrity: content does not match its digest or size.
	ErrIntegrity = errors.New("integrity check failed")
	// ErrVerification: signatures, attestations or provenance do not
	// satisfy the keys or the policy.
	ErrVerification = errors.New("verification failed")
	// ErrExists: the target (a directory, a key file) exists and is not to
	// be overwritten.
	ErrExists = errors.New("target exists")
	// ErrConflict: the target changed since it was read (a tag moved after
	// a plan was made); running again sees the new state.
	ErrConflict = errors.New("conflict")
	// ErrUnsupported: the other side does not support the operation (a
	// registry that refuses deletes).
	ErrUnsupported = errors.New("unsupported")
)

// Classes lists the root classes in the order a caller should test them when
// an error chain carries more than one (a verification failure that names a
// missing key file, say): the most specific diagnosis first.
func Classes() []error {
	return []error{
		ErrInvalidArgument, ErrVerification, ErrIntegrity, ErrDenied,
		ErrUnreachable, ErrNotFound, ErrExists, ErrInvalid, ErrConflict, ErrUnsupported,
	}
}

// ClassOf returns the first class of [Classes] that err matches, or nil.
// An error of the file system saying a file does not exist (fs.ErrNotExist)
// is in ErrNotFound.
func ClassOf(err error) error {
	for _, c := range Classes() {
		if errors.Is(err, c) || c == ErrNotFound && errors.Is(err, fs.ErrNotExist) {
			return c
		}
	}
	return nil
}

// The integrity errors, shared by the registry client, the OCI layout and
// tarball sources and the cache. Both are in class ErrIntegrity.
var (
	// ErrDigestMismatch: content whose digest is not the expected one.
	ErrDigestMismatch = New(ErrIntegrity, "digest mismatch")
	// ErrSizeMismatch: content whose size is not the expected one.
	ErrSizeMismatch = New(ErrIntegrity, "size mismatch")
)

// New returns a sentinel error with message msg in class: errors.Is matches
// the sentinel itself and the class. The message is msg alone, so a sentinel
// reads the same as one made with errors.New.
func New(class error, msg string) error {
	return &sentinel{msg: msg, class: class}
}

type sentinel struct {
	msg   string
	class error
}

func (s *sentinel) Error() string { return s.msg }

// Unwrap returns the class.
func (s *sentinel) Unwrap() error { return s.class }

// ErrUsage marks a command-line mistake found by a package that checks
// options built from flags (a flag that needs another, two that exclude
// each other). It is in class ErrInvalidArgument; the CLI adds its usage
// hint to errors that match it.
var ErrUsage = New(ErrInvalidArgument, "usage")

// Usagef returns an error in ErrUsage whose message is the formatted text
// alone (fmt.Errorf's %w wraps as usual).
func Usagef(format string, args ...any) error {
	return usageErr{fmt.Errorf(format, args...)}
}

type usageErr struct{ err error }

func (e usageErr) Error() string   { return e.err.Error() }
func (e usageErr) Unwrap() []error { return []error{e.err, ErrUsage} }
