package render

import (
	"errors"
	"fmt"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Sentinel errors for what Build refuses. Test with errors.Is; the concrete
// error is usually a *RefusedError naming the kustomization file and field.
var (
	// ErrRemoteResource: an entry of a kustomization is not a path inside
	// the package (a git or http URL, an absolute path, or a path leaving
	// the package root). Kustomize would try to fetch it over the network
	// or read it from the host, so Build refuses it up front.
	ErrRemoteResource = errdef.New(errdef.ErrInvalid, "remote resources are not allowed")

	// ErrMissingFile: an entry of a kustomization names a path of the
	// package that does not exist (a typo, most often). Kustomize would
	// then try it as a git repository, so Build refuses it up front — but
	// says what it is, not that remote resources are not allowed.
	ErrMissingFile = errdef.New(errdef.ErrInvalid, "no such file or directory in the package")

	// ErrHelm: a kustomization inflates helm charts (helmCharts,
	// helmGlobals, helmChartInflationGenerator, or a
	// HelmChartInflationGenerator generator config).
	ErrHelm = errdef.New(errdef.ErrInvalid, "helm charts are not allowed")

	// ErrPlugin: a generator, transformer or validator needs a plugin
	// (exec, Go, container or Starlark function); only kustomize's builtin
	// plugins (apiVersion: builtin) are allowed.
	ErrPlugin = errdef.New(errdef.ErrInvalid, "plugins are not allowed")

	// errKustomizePanic marks a panic recovered from kustomize itself.
	errKustomizePanic = errors.New("kustomize panicked")

	// errPanic marks any other panic recovered inside Build.
	errPanic = errors.New("panic while rendering")
)

// RefusedError is returned when Build refuses a kustomization before running
// kustomize. Its message has the form
//
//	deploy/kustomization.yaml: resources[2]: "github.com/x/y?ref=v1": not a path inside the package (remote resources are not allowed)
type RefusedError struct {
	File   string // kustomization file, slash path relative to the package root
	Field  string // field with index, e.g. "resources[2]", "patches[0].path", "openapi.path"
	Value  string // the offending value; may be empty
	Reason string // what is wrong; may be empty
	Err    error  // ErrRemoteResource, ErrMissingFile, ErrHelm or ErrPlugin
}

func (e *RefusedError) Error() string {
	msg := e.Field + ": "
	if e.File != "" {
		msg = e.File + ": " + msg
	}
	if e.Value != "" {
		msg += fmt.Sprintf("%q: ", e.Value)
	}
	if e.Reason == "" || errors.Is(e.Err, ErrMissingFile) {
		return msg + e.Err.Error()
	}
	return msg + e.Reason + " (" + e.Err.Error() + ")"
}

func (e *RefusedError) Unwrap() error { return e.Err }

// missingInPackage builds the RefusedError for an entry naming a path of the
// package that does not exist (what names a directory says so).
func missingInPackage(file, field, value string) error {
	return &RefusedError{File: file, Field: field, Value: value, Err: ErrMissingFile}
}

// notInPackage builds the RefusedError for an entry that is not a path inside
// the package. detail, if not empty, says why.
func notInPackage(file, field, value, detail string) error {
	reason := "not a path inside the package"
	if detail != "" {
		reason += ": " + detail
	}
	return &RefusedError{File: file, Field: field, Value: value, Reason: reason, Err: ErrRemoteResource}
}
