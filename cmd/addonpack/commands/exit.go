package commands

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/mirror"
	"github.com/addonpack/addonpack/pkg/stack"
)

// Exit codes, documented in docs/exit-codes.md. Scripts may rely on them.
const (
	ExitOK          = 0   // success
	ExitFailure     = 1   // any other failure
	ExitUsage       = 2   // bad command line: unknown flag, missing argument, bad reference syntax
	ExitInvalid     = 3   // invalid input: add-on source, addon.yaml, schema, config, kustomization, artifact or unsafe archive content
	ExitNotFound    = 4   // the reference, tag, digest or layout does not exist
	ExitUnreachable = 5   // the registry could not be reached (DNS, connection, TLS) or stalled (--read-timeout)
	ExitDenied      = 6   // the registry refused the credentials
	ExitIntegrity   = 7   // the registry served bytes that do not match their digest or size, or a cached blob changed while read
	ExitConflict    = 8   // the target exists: pull -o, render -o take --force; init and keygen never overwrite
	ExitVerify      = 9   // verification failed: signatures, attestations or provenance do not satisfy the keys or policy
	ExitDrift       = 10  // lock --check: the lock no longer matches its stack file or the registries; mirror: a destination tag at another digest
	ExitInterrupted = 130 // interrupted by SIGINT or SIGTERM
)

// usageError marks command-line mistakes. It is in class
// errdef.ErrInvalidArgument, like a reference that does not parse.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() []error {
	return []error{e.err, errdef.ErrInvalidArgument}
}

// ExitCode maps an error to the documented exit code through its class
// (errdef.ClassOf, which also settles an error carrying several classes).
func ExitCode(ctx context.Context, err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, new(errDiffer)):
		return ExitFailure
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.Is(err, stack.ErrDrift), errors.Is(err, mirror.ErrDrift): // lock --check's and mirror's own code
		return ExitDrift
	}
	switch errdef.ClassOf(err) {
	case errdef.ErrInvalidArgument:
		return ExitUsage
	case errdef.ErrVerification:
		return ExitVerify
	case errdef.ErrIntegrity:
		return ExitIntegrity
	case errdef.ErrDenied:
		return ExitDenied
	case errdef.ErrUnreachable:
		return ExitUnreachable
	case errdef.ErrNotFound:
		return ExitNotFound
	case errdef.ErrExists:
		return ExitConflict
	case errdef.ErrInvalid:
		return ExitInvalid
	}
	return ExitFailure
}

// PrintError writes err to w the way every command reports failures.
func PrintError(w io.Writer, err error) {
	fmt.Fprintf(w, "Error: %v\n", err)
	var usage usageError
	if errors.As(err, &usage) {
		fmt.Fprintln(w, "Run 'addonpack --help' for usage.")
	}
}

// Run executes the command line args as the addonpack binary does — errors
// printed to streams.Err — and returns the exit code. main and the tests that
// drive the CLI in process share it.
func Run(ctx context.Context, streams Streams, getenv Getenv, args []string) int {
	cmd, g := newRoot(streams, getenv, args)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	g.progress.Stop()
	if err != nil {
		PrintError(streams.Err, err)
	}
	return ExitCode(ctx, err)
}
