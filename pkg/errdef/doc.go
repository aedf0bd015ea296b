// Package errdef holds the root error classes every addonpack package wraps.
//
// Each exported sentinel of a pkg/ package belongs to exactly one class:
// it is made with [New] (or wraps a class with %w), so errors.Is matches both
// the sentinel and its class. A program — the addonpack CLI choosing its exit
// code, a stack resolver deciding whether to retry — then asks about the
// class and needs no list of every package's sentinels:
//
//	switch {
//	case errors.Is(err, errdef.ErrUnreachable): // retry later
//	case errors.Is(err, errdef.ErrVerification): // refuse the artifact
//	}
//
// The integrity errors (content whose digest or size is not the expected
// one) live here too, because the registry client, the OCI layout and
// tarball readers and the cache all report them.
//
// The classes follow oras-go's errdef and the exit codes of the CLI
// (docs/exit-codes.md): ErrInvalidArgument 2, ErrInvalid 3, ErrNotFound 4,
// ErrUnreachable 5, ErrDenied 6, ErrIntegrity 7, ErrExists 8,
// ErrVerification 9; ErrConflict and ErrUnsupported are "any other failure",
// 1, for now.
package errdef
