package spec

import (
	"errors"
	"strings"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrInvalid is matched (errors.Is) by every validation failure of this package.
var ErrInvalid = errdef.New(errdef.ErrInvalid, "invalid")

// FieldError is one problem with one field of one file.
type FieldError struct {
	File  string // e.g. "addon.yaml"
	Field string // dotted path, e.g. "spec.version"; "" for the whole document
	Msg   string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Is makes every FieldError match ErrInvalid and its class.
func (e *FieldError) Is(target error) bool { return errors.Is(ErrInvalid, target) }

// Errors is every problem found in one document, in document order.
type Errors []*FieldError

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Is makes Errors match ErrInvalid and its class.
func (es Errors) Is(target error) bool { return errors.Is(ErrInvalid, target) }

// Unwrap exposes each FieldError to errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// orNil returns nil for an empty list, so callers can `return errs.orNil()`.
func (es Errors) orNil() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
