package errdef_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
)

func TestNew(t *testing.T) {
	errGone := errdef.New(errdef.ErrNotFound, "gone")
	wrapped := fmt.Errorf("fetch sha256:abc: %w", errGone)
	if got := wrapped.Error(); got != "fetch sha256:abc: gone" {
		t.Errorf("message %q: a sentinel reads as its own text only", got)
	}
	if !errors.Is(wrapped, errGone) || !errors.Is(wrapped, errdef.ErrNotFound) {
		t.Error("the wrapped sentinel matches neither itself nor its class")
	}
	if errors.Is(wrapped, errdef.ErrInvalid) {
		t.Error("matches a class it is not in")
	}
}

func TestClassOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"nil", nil, nil},
		{"no class", errors.New("boom"), nil},
		{"one class", fmt.Errorf("x: %w", errdef.ErrDigestMismatch), errdef.ErrIntegrity},
		{"file system", fmt.Errorf("open x: %w", fs.ErrNotExist), errdef.ErrNotFound},
		// A verification failure that also names a missing file is a
		// verification failure: Classes orders the diagnosis.
		{"two classes", errors.Join(errdef.New(errdef.ErrNotFound, "a"), errdef.New(errdef.ErrVerification, "b")), errdef.ErrVerification},
		{"invalid argument before invalid", errors.Join(errdef.ErrInvalid, errdef.ErrInvalidArgument), errdef.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errdef.ClassOf(tt.err); got != tt.want {
				t.Errorf("ClassOf = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUsagef(t *testing.T) {
	inner := errors.New("inner")
	err := errdef.Usagef("--x needs --y: %w", inner)
	if err.Error() != "--x needs --y: inner" || !errors.Is(err, errdef.ErrUsage) || !errors.Is(err, inner) || errdef.ClassOf(err) != errdef.ErrInvalidArgument {
		t.Fatalf("Usagef: %q, usage %v, inner %v, class %v", err, errors.Is(err, errdef.ErrUsage), errors.Is(err, inner), errdef.ClassOf(err))
	}
}
