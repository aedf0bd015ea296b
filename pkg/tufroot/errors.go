package tufroot

import "github.com/addonpack/addonpack/pkg/errdef"

// Sentinels, each in one errdef class.
var (
	// ErrOptions: the options do not describe a repository to trust (a
	// URL other than the public-good mirror without its initial root, a
	// URL that is not https outside loopback).
	ErrOptions = errdef.New(errdef.ErrInvalidArgument, "invalid TUF fetch options")
	// ErrInitialRoot: the initial TUF root given is not TUF root metadata
	// signed by its own keys.
	ErrInitialRoot = errdef.New(errdef.ErrInvalid, "invalid initial TUF root")
	// ErrUnreachable: the repository could not be reached, failed with a
	// server error or stalled.
	ErrUnreachable = errdef.New(errdef.ErrUnreachable, "TUF repository unreachable")
	// ErrMetadata: the repository's metadata did not verify (signatures,
	// threshold, versions, expiry, format).
	ErrMetadata = errdef.New(errdef.ErrVerification, "TUF metadata did not verify")
	// ErrMismatch: a file does not have the length or hashes its signed
	// metadata gives (a tampered target or snapshot).
	ErrMismatch = errdef.New(errdef.ErrIntegrity, "TUF file does not match its signed length or hashes")
	// ErrNoTarget: the repository's signed targets do not list the file,
	// or it is not served.
	ErrNoTarget = errdef.New(errdef.ErrNotFound, "not in the TUF repository")
)
