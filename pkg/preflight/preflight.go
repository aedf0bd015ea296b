// Package preflight checks, before anything is applied, what a cluster
// would only refuse half way through an apply: the add-on's Kubernetes
// range against the server's version, every kind the rendered objects use
// against what the server serves (or a CRD of the add-on, or of an earlier
// add-on of a stack, creates), the caller's right to create and patch each
// object, and whether an installed CRD the add-on replaces would lose a
// served version, a stored version or a field (docs/development.md "Try it on a real cluster"; the JSON in specs/cli-output.md).
//
// The checks ask the cluster through [Cluster], four questions; [Connect]
// answers them with client-go against a kubeconfig, tests with a fake.
package preflight

import (
	"context"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Sentinels. A failed check is a verification-like refusal (exit 9): the
// cluster does not satisfy what the add-on needs.
var (
	// ErrFailed: at least one check found something that would make the
	// apply fail; the report lists each finding.
	ErrFailed = errdef.New(errdef.ErrVerification, "preflight failed")
	// ErrUnreachable: the API server could not be reached.
	ErrUnreachable = errdef.New(errdef.ErrUnreachable, "cluster unreachable")
	// ErrDenied: the API server refused the credentials, or a request
	// every authenticated user may make (discovery, a self access review).
	ErrDenied = errdef.New(errdef.ErrDenied, "the cluster refused the request")
	// ErrKubeconfig: no kubeconfig, context or in-cluster configuration
	// to reach a cluster with.
	ErrKubeconfig = errdef.New(errdef.ErrInvalid, "no usable cluster configuration")
)

// Cluster is what the checks ask of the API server.
type Cluster interface {
	// ServerVersion is the server's gitVersion ("v1.34.4").
	ServerVersion(ctx context.Context) (string, error)
	// ServerResources lists the resources the server serves (discovery).
	ServerResources(ctx context.Context) (Served, error)
	// AccessReview asks whether the caller (or the user the cluster was
	// connected as) may do a.
	AccessReview(ctx context.Context, a Access) (Decision, error)
	// GetCRD returns the installed CustomResourceDefinition name, or nil
	// when there is none. An error of class errdef.ErrDenied says the
	// caller may not read it.
	GetCRD(ctx context.Context, name string) (*CRD, error)
}

// Resource is one served resource: the kind of a group/version and the
// name access reviews and URLs use for it.
type Resource struct {
	Group, Version, Kind string
	// Name is the plural resource name ("deployments").
	Name       string
	Namespaced bool
}

// Served is the result of discovery. Unavailable lists the group/versions
// the server could not list (an aggregated API whose backend is down):
// kinds of those are neither served nor missing.
type Served struct {
	Resources   []Resource
	Unavailable []string
}

// Access is one request an apply makes, as an access review asks it.
type Access struct {
	Verb, Group, Resource, Namespace, Name string
}

// Decision is the answer of an access review.
type Decision struct {
	Allowed bool
	Reason  string
}

// Options tune the checks.
type Options struct {
	// Server is the API server's URL, for the report.
	Server string
	// Namespace is where a namespaced object without a namespace is
	// applied: the kubeconfig context's (kubectl does the same); "" means
	// "default".
	Namespace string
	// User and Groups, when set, are whom the access reviews were asked
	// for (SubjectAccessReview); the report names them.
	User   string
	Groups []string
}
