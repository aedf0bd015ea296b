package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/locate"
	"github.com/addonpack/addonpack/pkg/prune"
	"github.com/addonpack/addonpack/pkg/pull"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/render"
	"github.com/addonpack/addonpack/pkg/scaffold"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Exit codes, documented in README.md ("Exit codes"). Scripts may rely on them.
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
	ExitDrift       = 10  // lock --check: the lock no longer matches its stack file or the registries
	ExitInterrupted = 130 // interrupted by SIGINT or SIGTERM
)

// usageError marks command-line mistakes.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// ExitCode maps an error to the documented exit code.
func ExitCode(ctx context.Context, err error) int {
	var usage usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, new(errDiffer)):
		return ExitFailure
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.Is(err, stack.ErrDrift):
		return ExitDrift
	case errors.As(err, &usage), errors.Is(err, registry.ErrInvalidReference):
		return ExitUsage
	case errors.Is(err, verify.ErrVerification):
		return ExitVerify
	case errors.Is(err, registry.ErrDigestMismatch), errors.Is(err, registry.ErrSizeMismatch):
		return ExitIntegrity
	case errors.Is(err, registry.ErrUnauthorized):
		return ExitDenied
	case errors.Is(err, registry.ErrUnreachable):
		return ExitUnreachable
	case errors.Is(err, registry.ErrNotFound), errors.Is(err, fs.ErrNotExist), errors.Is(err, semver.ErrNoMatch):
		return ExitNotFound
	case errors.Is(err, pull.ErrTargetNotEmpty), errors.Is(err, scaffold.ErrExists), errors.Is(err, keys.ErrExists):
		return ExitConflict
	case isInvalid(err):
		return ExitInvalid
	}
	return ExitFailure
}

func isInvalid(err error) bool {
	for _, target := range []error{
		spec.ErrInvalid, build.ErrSource, schema.ErrInvalid, layout.ErrLayout, registry.ErrTooLarge,
		archive.ErrUnsafePath, archive.ErrEntryType, archive.ErrDuplicate, archive.ErrLimit, archive.ErrIgnoreFile,
		schema.ErrSchema, schema.ErrObject, config.ErrNoConfig, archive.ErrFormat, archive.ErrFileChanged,
		render.ErrRemoteResource, render.ErrHelm, render.ErrPlugin, render.ErrYAMLLimit, build.ErrRender,
		verify.ErrPolicy, keys.ErrKey, relocate.ErrTooMany, relocate.ErrMalformedRecord, locate.ErrNotUsable,
		semver.ErrAmbiguous, semver.ErrRange, semver.ErrVersion,
		prune.ErrPins, prune.ErrTooMany, stack.ErrStack, stack.ErrResolve,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	var rendered *render.RefusedError
	return errors.As(err, &rendered)
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
	cmd := New(streams, getenv)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err != nil {
		PrintError(streams.Err, err)
	}
	return ExitCode(ctx, err)
}
